// SPDX-License-Identifier: GPL-2.0
/*
 * Loading and unloading rust_afunix.ko: the `family` parameter, its errors and their
 * kernel log lines, and the module reference every socket holds. Runs with the module
 * loaded (by scripts/vm-run) and leaves it loaded with its default parameters.
 */
#include "common.h"
#include <sys/syscall.h>

#include "kselftest_harness.h"

#define MODNAME "rust_afunix"

static int load(const char *params)
{
	const char *dir = getenv("AFUNIX_ROOT");
	char path[4096];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/" MODNAME ".ko", dir ? dir : ".");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, params, 0);
	close(fd);
	return ret;
}

static int unload(void)
{
	return syscall(SYS_delete_module, MODNAME, O_NONBLOCK);
}

/*
 * Unloads once the module's closed sockets are freed: a socket of the family is freed
 * a grace period after its last close (SOCK_RCU_FREE), and holds the module until then.
 * Waits (at most 10 s) for the module's reference count to reach 0.
 */
static int unload_settled(void)
{
	int i;

	for (i = 0; i < 1000 && read_int_file("/sys/module/" MODNAME "/refcnt") > 0; i++)
		usleep(10000);
	return unload();
}

static bool loaded(void)
{
	return access("/sys/module/" MODNAME, F_OK) == 0;
}

/* Opens the kernel log, positioned after its last record. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* Whether a record written since kmsg_open() contains `text`. */
static bool kmsg_has(int fd, const char *text)
{
	char rec[8192];
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0) {
			if (errno == EPIPE)
				continue;	/* overwritten records */
			return false;
		}
		rec[n] = 0;
		if (strstr(rec, text))
			return true;
	}
}

FIXTURE(module_load)
{
	int kmsg;
};

FIXTURE_SETUP(module_load)
{
	ASSERT_TRUE(loaded()) TH_LOG("run with the module loaded (scripts/vm-run)");
	ASSERT_EQ(0, unload_settled());
	self->kmsg = kmsg_open();
	ASSERT_LE(0, self->kmsg);
}

FIXTURE_TEARDOWN(module_load)
{
	if (!loaded())
		load("");
	close(self->kmsg);
}

TEST_F(module_load, bad_family_is_einval)
{
	static const char *const bad[] = { "family=0", "family=-3", "family=46", "family=1000" };

	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(EINVAL, ERRNO_OF(load(bad[i]))) TH_LOG("%s", bad[i]);
		EXPECT_FALSE(loaded());
	}
	EXPECT_TRUE(kmsg_has(self->kmsg, "is not a usable family number"));
}

/*
 * EBUSY, not sock_register()'s EEXIST: from a module's init, EEXIST tells modprobe the
 * module is already loaded (the 6.14+ loader rewrites it to EBUSY itself).
 */
TEST_F(module_load, taken_family_is_ebusy)
{
	/* 16 is AF_NETLINK, 1 is AF_UNIX: both registered */
	EXPECT_EQ(EBUSY, ERRNO_OF(load("family=16")));
	EXPECT_FALSE(loaded());
	EXPECT_TRUE(kmsg_has(self->kmsg, "family=16 is taken by another protocol"));
	EXPECT_EQ(EBUSY, ERRNO_OF(load("family=1")));
	EXPECT_FALSE(loaded());
}

TEST_F(module_load, other_family_works)
{
	int sv[2];
	char c;

	ASSERT_EQ(0, load("family=19"));
	EXPECT_EQ(19, afunix_module_family());
	EXPECT_TRUE(kmsg_has(self->kmsg, "registered socket family 19"));
	ASSERT_EQ(0, socketpair(19, SOCK_STREAM, 0, sv));
	EXPECT_EQ(1, write(sv[0], "z", 1));
	EXPECT_EQ(1, read(sv[1], &c, 1));
	close(sv[0]);
	close(sv[1]);
	/* the default slot is free again */
	EXPECT_EQ(EAFNOSUPPORT, ERRNO_OF(socket(12, SOCK_STREAM, 0)));
	EXPECT_EQ(0, unload_settled());
	EXPECT_TRUE(kmsg_has(self->kmsg, "unregistered socket family 19"));
	EXPECT_EQ(EAFNOSUPPORT, ERRNO_OF(socket(19, SOCK_STREAM, 0)));
}

TEST_F(module_load, sockets_pin_the_module)
{
	int fd, sv[2];

	ASSERT_EQ(0, load(""));
	fd = socket(afunix_module_family(), SOCK_DGRAM, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, socketpair(afunix_module_family(), SOCK_SEQPACKET, 0, sv));
	EXPECT_EQ(EWOULDBLOCK, ERRNO_OF(unload()));
	close(fd);
	EXPECT_EQ(EWOULDBLOCK, ERRNO_OF(unload()));
	close(sv[0]);
	EXPECT_EQ(EWOULDBLOCK, ERRNO_OF(unload()));
	close(sv[1]);
	EXPECT_EQ(0, unload_settled());
	EXPECT_FALSE(loaded());
}

TEST_HARNESS_MAIN
