package main

import (
	"io"

	"context"
	"fmt"
	"github.com/nlutest/nlutest/reporters"
	"net"

	"github.com/nlutest/nlutest/runner/demo"
)

func (a *App) cmdServe(ctx context.Context, args []string) int {
	fs := newFlagSet(a, "serve", "serve demo [--addr 127.0.0.1:8080]")
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (port 0: any free port)")
	addrFile := fs.String("addr-file", "", "once listening, write the address (host:port) to FILE, for scripts that pass --addr 127.0.0.1:0")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) != 1 || pos[0] != "demo" {
		return a.fail(usagef("serve takes one service name: demo"))
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return a.fail(fmt.Errorf("cannot listen on %s: %w", *addr, err))
	}
	if !isLoopback(ln.Addr()) {
		fmt.Fprintf(a.Stderr, "nlutest: warning: serving on %s, which is not a loopback address: other machines can reach the demo service. Use --addr 127.0.0.1:PORT to keep it on this machine.\n", ln.Addr())
	}
	if *addrFile != "" {
		if err := reporters.WriteFile(*addrFile, func(w io.Writer) error { _, err := io.WriteString(w, ln.Addr().String()+"\n"); return err }); err != nil {
			_ = ln.Close()
			return a.fail(fmt.Errorf("cannot write --addr-file: %w", err))
		}
	}
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(a.Stdout, "nlutest demo NLU serving on %s\n  POST %s/model/parse  {\"text\": \"…\"}   Rasa-style intents and entities\n  POST %s/iao          {\"query\": \"…\"}  the IAO corpus-factory write-up IAO relation queries\n  POST %s/booking      {\"session\": \"…\", \"text\": \"…\"}  stateful booking bot\n  GET  %s/health\nPress Ctrl-C to stop.\n", base, base, base, base, base)
	if err := demo.Serve(ctx, ln); err != nil {
		return a.fail(err)
	}
	return ExitPass
}

// isLoopback reports whether a listener's address is a loopback one
// (127.0.0.0/8, ::1); 0.0.0.0 and :: listen on every interface.
func isLoopback(addr net.Addr) bool {
	ta, ok := addr.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}
