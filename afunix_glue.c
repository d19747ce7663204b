// SPDX-License-Identifier: GPL-2.0
/*
 * The C glue of rust_afunix that must exist once in the module, so it is never merged
 * into the crate's bitcode with afunix_helpers.c (see Kbuild): the module parameters
 * (6.12's module! has none), the sysctl template (SYSCTL_* macros), and the
 * pernet_operations, which keep an opaque handle to the Rust per-netns state (6.12 has
 * no Rust pernet API).
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <net/netns/generic.h>

#include "afunix_bindings.h"

/*
 * AF_DECnet (12): its code was removed from Linux in 6.1, so no 6.12 code registers
 * this slot. See README.md, "Family number".
 */
int afunix_family = 12;
module_param_named(family, afunix_family, int, 0444);
MODULE_PARM_DESC(family, "Address family number to register (default 12, ex-AF_DECnet; 1..45, free)");

/*
 * A debug knob for tests only: the autobind name space is 2^autobind_bits names
 * (AF_UNIX: 2^20, the default). Filling all 2^20 names of AF_UNIX's 256-bucket layout
 * takes hours under TCG; a small space lets a test reach the wrap-around and ENOSPC.
 */
int afunix_autobind_bits = 20;
module_param_named(autobind_bits, afunix_autobind_bits, int, 0644);
MODULE_PARM_DESC(autobind_bits, "Debug: autobind name space is 2^N names, 1..20 (default 20, as AF_UNIX)");

/*
 * A debug knob for tests and benchmarks only: write-space wakeups without the
 * EPOLLOUT|EPOLLWRNORM|EPOLLWRBAND key, waking every poller of the socket (AF_UNIX
 * before 2010), to show that the wakeup test and benchmark detect the herd.
 */
bool afunix_wakeup_unkeyed;
module_param_named(wakeup_unkeyed, afunix_wakeup_unkeyed, bool, 0644);
MODULE_PARM_DESC(wakeup_unkeyed, "Debug: unkeyed write-space wakeups (default N)");

/*
 * Per network namespace: a pointer to the Rust state (hash.rs's NetTable), made and
 * freed by api/pernet.rs. 6.12 has no Rust pernet_operations, so C registers them.
 */
unsigned int afunix_net_id;

static int __net_init afunix_net_init(struct net *net)
{
	return rust_afunix_net_init(net, net_generic(net, afunix_net_id));
}

static void __net_exit afunix_net_exit(struct net *net)
{
	rust_afunix_net_exit(net, net_generic(net, afunix_net_id));
}

static struct pernet_operations afunix_net_ops = {
	.init = afunix_net_init,
	.exit = afunix_net_exit,
	.id = &afunix_net_id,
	.size = sizeof(void *),
};

int afunix_pernet_register(void)
{
	return register_pernet_subsys(&afunix_net_ops);
}

void afunix_pernet_unregister(void)
{
	unregister_pernet_subsys(&afunix_net_ops);
}

/*
 * The template of the per-netns sysctls net.rust_afunix.*, which needs the SYSCTL_*
 * macros; api/sysctl.rs registers a copy per netns, with its data in the Rust state.
 */
const struct ctl_table afunix_sysctl_template[AFUNIX_SYSCTLS] = {
	{
		.procname = "abstract_buckets",
		.maxlen = sizeof(int),
		.mode = 0444,
		.proc_handler = proc_dointvec,
	},
	{
		.procname = "pathname_buckets",
		.maxlen = sizeof(int),
		.mode = 0444,
		.proc_handler = proc_dointvec,
	},
	{
		.procname = "stream_coalesce",
		.maxlen = sizeof(int),
		.mode = 0644,
		.proc_handler = proc_dointvec_minmax,
		.extra1 = SYSCTL_ZERO,
		.extra2 = SYSCTL_ONE,
	},
};
