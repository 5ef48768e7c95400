package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/nlutest/nlutest/runner/transport"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// ErrExec is the error type of an exec target whose command failed.
const ErrExec = "ExecError"

// execCaller runs a command per case: the case as JSON on stdin
// ({"text": …, "case": {…}}), the response as JSON on stdout. On timeout
// the whole process group is killed.
type execCaller struct {
	suite  *spec.Suite
	target *spec.Target
	lim    *transport.Limiter
	red    *Redactor
	env    []string
}

func newExecCaller(s *spec.Suite, t *spec.Target, lim *transport.Limiter) *execCaller {
	env := os.Environ()
	for k, v := range t.CommandEnv {
		env = append(env, k+"="+v)
	}
	return &execCaller{suite: s, target: t, lim: lim, red: NewRedactor(s.Secrets), env: env}
}

func (e *execCaller) Preflight(context.Context) error {
	if _, err := exec.LookPath(e.target.Command[0]); err != nil {
		return fmt.Errorf("exec target %q: %v", e.target.Name, err)
	}
	return nil
}

// capWriter keeps at most limit bytes and remembers that more came.
type capWriter struct {
	buf   bytes.Buffer
	limit int64
	over  bool
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := w.limit - int64(w.buf.Len()); room > 0 {
		if int64(len(p)) > room {
			w.buf.Write(p[:room])
			w.over = true
		} else {
			w.buf.Write(p)
		}
	} else if len(p) > 0 {
		w.over = true
	}
	return len(p), nil
}

func (e *execCaller) Call(ctx context.Context, c *schema.Case) *schema.Result {
	r := &schema.Result{Case: *c, Target: e.target.Name, Started: time.Now().UTC(), Attempts: 1}
	fail := func(typ, msg string) *schema.Result {
		r.Error = &schema.CallError{Type: typ, Message: e.red.String(msg)}
		r.Outcome = schema.Error
		return r
	}
	if err := e.lim.Wait(ctx); err != nil {
		return fail(schema.ErrRequest, "interrupted")
	}
	in, err := json.Marshal(map[string]any{"text": c.Text, "case": c})
	if err != nil {
		return fail(schema.ErrRequest, err.Error())
	}
	r.Request = &schema.Request{Method: "EXEC", URL: e.red.String(strings.Join(e.target.Command, " ")), Body: e.red.String(string(in))}
	cctx, cancel := context.WithTimeout(ctx, e.target.Timeout)
	defer cancel()
	cmd := exec.Command(e.target.Command[0], e.target.Command[1:]...)
	cmd.Dir, cmd.Env = e.target.CommandDir, e.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdin = bytes.NewReader(in)
	stdout := &capWriter{limit: e.target.MaxResponseBytes}
	stderr := &capWriter{limit: 4 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fail(ErrExec, fmt.Sprintf("cannot start %s: %v", e.target.Command[0], err))
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-cctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		r.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
		return fail(schema.ErrTimeout, fmt.Sprintf("no answer from %s within %s; its process group was killed", e.target.Command[0], e.target.Timeout))
	}
	r.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
	if werr != nil {
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			r.Status = ee.ExitCode()
		}
		msg := strings.TrimSpace(stderr.buf.String())
		if msg == "" {
			msg = werr.Error()
		}
		r.Body = truncateUTF8(stdout.buf.Bytes(), maxRecordedBody)
		return fail(ErrExec, fmt.Sprintf("%s exited with %v: %s", e.target.Command[0], werr, msg))
	}
	if stdout.over {
		return fail(schema.ErrTooLarge, fmt.Sprintf("output exceeds %d bytes", e.target.MaxResponseBytes))
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, bytes.TrimSpace(stdout.buf.Bytes())); err != nil {
		r.Body = truncateUTF8(stdout.buf.Bytes(), maxRecordedBody)
		return fail(schema.ErrInvalidJSON, fmt.Sprintf("output is not JSON: %v", err))
	}
	r.Response = json.RawMessage(e.red.JSON(buf.Bytes()))
	return r
}

func (e *execCaller) Open(context.Context, *schema.Script) (Session, error) { return Stateless(e), nil }

func (e *execCaller) Close() {}

var _ io.Writer = (*capWriter)(nil)
