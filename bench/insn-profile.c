// SPDX-License-Identifier: GPL-2.0
/*
 * insn-profile: a QEMU TCG plugin (plugin API version 1, QEMU 7.2) that counts the guest
 * instructions retired in each kernel translation block, for scripts/profile.
 *
 * Every translated block whose first address is in the kernel half gets a counter, and
 * each execution adds the block's instruction count to it (an inline add: no call per
 * block). Guest user space is counted in one bucket (address 0). A marker instruction a
 * guest program executes, `xchg %bx,%bx` (66 87 db, a no-op), ends a phase: the plugin
 * writes the counters to <out>.<phase> ("address instructions" per line, non-zero ones)
 * and zeroes them. The last phase is written when QEMU exits. Under -icount the guest
 * runs one vCPU at a time, so the plain adds do not race.
 *
 * The plugin API's declarations are in qemu-plugin-api.h.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin-api.h"

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* Open addressing over block start addresses; 2^21 slots hold any boot's kernel blocks. */
#define SLOTS (1u << 21)
struct slot {
	uint64_t vaddr;
	uint64_t insns;
};
static struct slot *slots;
static const char *out = "insn-profile";
static unsigned int phase;

static uint64_t *counter_of(uint64_t vaddr)
{
	uint64_t h = (vaddr * 0x9e3779b97f4a7c15ULL) >> 43;

	for (;;) {
		struct slot *s = &slots[h & (SLOTS - 1)];

		if (s->vaddr == vaddr)
			return &s->insns;
		if (!s->vaddr) {
			s->vaddr = vaddr;
			return &s->insns;
		}
		h++;
	}
}

static void dump(void)
{
	char name[4096];
	FILE *f;
	size_t i;

	snprintf(name, sizeof(name), "%s.%u", out, phase++);
	f = fopen(name, "w");
	if (!f) {
		perror(name);
		return;
	}
	for (i = 0; i < SLOTS; i++) {
		if (slots[i].vaddr && slots[i].insns)
			fprintf(f, "%" PRIx64 " %" PRIu64 "\n", slots[i].vaddr, slots[i].insns);
		slots[i].insns = 0;
	}
	fclose(f);
}

static void on_marker(unsigned int vcpu_index, void *userdata)
{
	dump();
}

static void on_exit_cb(qemu_plugin_id_t id, void *userdata)
{
	dump();
}

static void on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	static const unsigned char marker[] = { 0x66, 0x87, 0xdb };
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	size_t n = qemu_plugin_tb_n_insns(tb), i;

	if (vaddr >> 63) {
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							 counter_of(vaddr), n);
		return;
	}
	/* User space: one bucket (address 1, as 0 marks a free slot), and the marker. */
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, counter_of(1), n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_size(insn) == sizeof(marker) &&
		    !memcmp(qemu_plugin_insn_data(insn), marker, sizeof(marker)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
							       const struct qemu_info_t *info,
							       int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out = argv[i] + 4;
	slots = calloc(SLOTS, sizeof(*slots));
	if (!slots)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb);
	qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
	return 0;
}
