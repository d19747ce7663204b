// SPDX-License-Identifier: GPL-2.0

// run_go: an AF_UNIX program in Go for tools/afunix-run. Go's runtime makes its system
// calls itself (no libc), so LD_PRELOAD cannot move it; its net package refuses an
// address of another family than AF_UNIX (EAFNOSUPPORT). It runs stream, seqpacket
// and datagram exchanges, fd passing with WriteMsgUnix/ReadMsgUnix, SO_PEERCRED, and
// prints what it reads back; the `launcher` test compares that output between a plain
// run (AF_UNIX) and a run under afunix-run (the module's family).
//
//	run_go DIR unix|rust_afunix
package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

var dir string

func check(err error, what string) {
	if err != nil {
		fmt.Printf("FAIL: %s: %v\n", what, err)
		os.Exit(1)
	}
}

// An address as the program sees it, the directory replaced by DIR.
func show(a net.Addr) string {
	if a == nil {
		return "<nil>"
	}
	return a.Network() + " " + strings.Replace(a.String(), dir, "DIR", 1)
}

// The inodes of the sockets made, for the /proc check at the end.
var inodes = map[uint64]string{}

func track(c syscall.Conn, what string) {
	rc, err := c.SyscallConn()
	check(err, "SyscallConn")
	check(rc.Control(func(fd uintptr) {
		var st syscall.Stat_t
		check(syscall.Fstat(int(fd), &st), "fstat")
		inodes[st.Ino] = what
		dom, err := syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_DOMAIN)
		check(err, "SO_DOMAIN")
		fmt.Printf("%s: SO_DOMAIN %d\n", what, dom)
	}), "Control")
}

func peercred(c *net.UnixConn, what string) {
	rc, err := c.SyscallConn()
	check(err, "SyscallConn")
	check(rc.Control(func(fd uintptr) {
		cr, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
		check(err, "SO_PEERCRED")
		fmt.Printf("%s peercred: pid is mine %v, uid is mine %v\n", what,
			int(cr.Pid) == os.Getpid(), int(cr.Uid) == os.Geteuid())
	}), "Control")
}

// A listener on network/address, a client dialled to it and the accepted connection.
func connected(network, address string) {
	l, err := net.Listen(network, address)
	check(err, "Listen "+network)
	ul := l.(*net.UnixListener)
	track(ul, network+" listener")
	fmt.Printf("%s listener: %s\n", network, show(l.Addr()))
	done := make(chan *net.UnixConn)
	go func() {
		s, err := ul.AcceptUnix()
		check(err, "Accept")
		done <- s
	}()
	c, err := net.Dial(network, address)
	check(err, "Dial "+network)
	uc := c.(*net.UnixConn)
	s := <-done
	track(uc, network+" client")
	track(s, network+" accepted")
	fmt.Printf("%s client: local %s, remote %s\n", network, show(c.LocalAddr()), show(c.RemoteAddr()))
	fmt.Printf("%s accepted: local %s, remote %s\n", network, show(s.LocalAddr()), show(s.RemoteAddr()))
	peercred(s, network)
	_, err = c.Write([]byte("hello " + network))
	check(err, "Write")
	buf := make([]byte, 64)
	n, err := s.Read(buf)
	check(err, "Read")
	fmt.Printf("%s: received %q\n", network, buf[:n])
	c.Close()
	s.Close()
	l.Close()
}

// Datagrams with an fd: WriteMsgUnix and ReadMsgUnix, and the sender's address.
func datagrams() {
	raddr := &net.UnixAddr{Name: filepath.Join(dir, "go-gram.sock"), Net: "unixgram"}
	laddr := &net.UnixAddr{Name: filepath.Join(dir, "go-gram-client.sock"), Net: "unixgram"}
	os.Remove(raddr.Name)
	os.Remove(laddr.Name)
	r, err := net.ListenUnixgram("unixgram", raddr)
	check(err, "ListenUnixgram")
	w, err := net.ListenUnixgram("unixgram", laddr)
	check(err, "ListenUnixgram")
	track(r, "unixgram receiver")
	track(w, "unixgram sender")
	f, err := os.CreateTemp(dir, "passed")
	check(err, "CreateTemp")
	f.WriteString("contents of the passed file")
	_, _, err = w.WriteMsgUnix([]byte("datagram with an fd"), syscall.UnixRights(int(f.Fd())), raddr)
	check(err, "WriteMsgUnix")
	f.Close()
	buf, oob := make([]byte, 64), make([]byte, 64)
	n, oobn, flags, from, err := r.ReadMsgUnix(buf, oob)
	check(err, "ReadMsgUnix")
	fmt.Printf("unixgram: received %q, flags %d, from %s\n", buf[:n], flags, show(from))
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	check(err, "ParseSocketControlMessage")
	fds, err := syscall.ParseUnixRights(&msgs[0])
	check(err, "ParseUnixRights")
	g := os.NewFile(uintptr(fds[0]), "passed")
	g.Seek(0, 0)
	got := make([]byte, 64)
	n, _ = g.Read(got)
	fmt.Printf("unixgram: %d fd passed, reads %q\n", len(fds), got[:n])
	g.Close()
	fmt.Printf("unixgram sender: local %s, remote %s\n", show(w.LocalAddr()), show(w.RemoteAddr()))
	w.Close()
	r.Close()
}

// A socketpair through syscall, made a net.Conn: its addresses.
func pair() {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	check(err, "Socketpair")
	f := os.NewFile(uintptr(fds[0]), "pair")
	c, err := net.FileConn(f)
	check(err, "FileConn")
	f.Close()
	track(c.(*net.UnixConn), "socketpair")
	fmt.Printf("socketpair: local %s, remote %s\n", show(c.LocalAddr()), show(c.RemoteAddr()))
	syscall.Write(fds[1], []byte("pair"))
	buf := make([]byte, 8)
	n, err := c.Read(buf)
	check(err, "Read")
	fmt.Printf("socketpair: received %q\n", buf[:n])
}

// Every socket made is listed in /proc/net/EXPECT (by inode), and none in the other.
func checkProc(expect, other string) {
	count := func(name string) int {
		f, err := os.Open("/proc/net/" + name)
		check(err, name)
		defer f.Close()
		found := 0
		s := bufio.NewScanner(f)
		for s.Scan() {
			fields := strings.Fields(s.Text())
			if len(fields) < 7 {
				continue
			}
			if ino, err := strconv.ParseUint(fields[6], 10, 64); err == nil {
				if _, ok := inodes[ino]; ok {
					found++
				}
			}
		}
		return found
	}
	// The listeners and connections above are closed: only the socketpair is left.
	in, out := count(expect), count(other)
	if in < 1 || out != 0 {
		fmt.Printf("FAIL: %d sockets in /proc/net/%s, %d in /proc/net/%s\n", in, expect, out, other)
		os.Exit(1)
	}
	fmt.Println("proc: the sockets left are in the expected /proc/net file")
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: run_go DIR unix|rust_afunix")
		os.Exit(2)
	}
	dir = os.Args[1]
	expect, other := os.Args[2], "rust_afunix"
	if expect != "unix" {
		other = "unix"
	}
	connected("unix", filepath.Join(dir, "go-stream.sock"))
	connected("unix", "@afunix-run-go")
	connected("unixpacket", filepath.Join(dir, "go-packet.sock"))
	datagrams()
	pair()
	checkProc(expect, other)
	fmt.Println("done")
}
