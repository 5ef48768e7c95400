package targets

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

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/runner/transport"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// ErrExec is the error type of an exec target whose command failed.
const ErrExec = "ExecError"

// execKind runs a command per case: the case as JSON on stdin
// ({"text": …, "case": {…}}), the response as JSON on stdout. On timeout
// the whole process group is killed.
//
//	exec {
//	  command = ["python3", "nlu.py"]
//	  env     = { MODEL = "small" }
//	  dir     = "tools" # relative to the suite file; default its directory
//	}
type execKind struct{}

var execSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "command", Required: true}, {Name: "env"}, {Name: "dir"}},
}

// execConfig is an exec target's command, its extra environment and its
// working directory (absolute, or relative to where nlutest runs).
type execConfig struct {
	Command []string
	Env     map[string]string
	Dir     string
}

func (execKind) Name() string { return "exec" }

func (execKind) Decode(d *spec.TargetDecoder) (any, bool) {
	c, ok := d.Content(d.Block, execSchema)
	if !ok {
		return nil, false
	}
	cfg := &execConfig{Command: d.Strings(c.Attributes, "command")}
	if len(cfg.Command) == 0 {
		d.Errorf(c.Attributes["command"].Expr.Range().Ptr(), "Empty command", "command is the program and its arguments, e.g. [\"python3\", \"nlu.py\"].")
	}
	// env may hold sensitive values: they go to the command's
	// environment only, never into a record.
	cfg.Env = d.SecretStringMap(c.Attributes, "env")
	cfg.Dir = d.Path(d.String(c.Attributes, "dir", "."))
	return cfg, true
}

func (execKind) NewCaller(_ context.Context, b *Build) (runner.Caller, error) {
	cfg := b.Target.Config.(*execConfig)
	env := childEnv(os.Environ())
	for k, v := range cfg.Env {
		env = append(env, k+"="+v)
	}
	return &execCaller{target: b.Target, cfg: cfg, lim: b.Limiter, red: b.Redactor, env: env}, nil
}

// childEnv is the environment of an exec target's command: nlutest's own,
// without the NLUTEST_VAR_ variables (they may hold secrets, and the suite
// passes the command what it needs, a sensitive variable included, through
// env), plus the target's env. env is never recorded.
func childEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if !strings.HasPrefix(kv, spec.EnvVarPrefix) {
			out = append(out, kv)
		}
	}
	return out
}

// waitDelay is how long an exec call waits, after its command ended or was
// killed, for output pipes other processes still hold.
const waitDelay = 500 * time.Millisecond

type execCaller struct {
	target *spec.Target
	cfg    *execConfig
	lim    *transport.Limiter
	red    *runner.Redactor
	env    []string
}

func (e *execCaller) Preflight(context.Context) error {
	if _, err := exec.LookPath(e.cfg.Command[0]); err != nil {
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
	r.Request = &schema.Request{Method: "EXEC", URL: e.red.String(strings.Join(e.cfg.Command, " ")), Body: e.red.String(string(in))}
	cctx, cancel := context.WithTimeout(ctx, e.target.Timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, e.cfg.Command[0], e.cfg.Command[1:]...)
	cmd.Dir, cmd.Env = e.cfg.Dir, e.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// On timeout the whole process group is killed, and Wait gives up on
	// output pipes a process outside the group still holds after
	// waitDelay: the timeout bounds the call.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = waitDelay
	cmd.Stdin = bytes.NewReader(in)
	stdout := &capWriter{limit: e.target.MaxResponseBytes}
	stderr := &capWriter{limit: 4 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		r := fail(ErrExec, fmt.Sprintf("cannot start %s: %v", e.cfg.Command[0], err))
		r.Error.Local = transport.LocalExhaustion(err)
		return r
	}
	werr := cmd.Wait()
	r.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
	// The output is recorded redacted on every path, and redacted whole
	// before it is cut, so a secret across the cut is not left in part.
	out := []byte(e.red.String(stdout.buf.String()))
	if cctx.Err() != nil {
		return fail(schema.ErrTimeout, fmt.Sprintf("no answer from %s within %s; its process group was killed", e.cfg.Command[0], e.target.Timeout))
	}
	if werr != nil {
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			r.Status = ee.ExitCode()
		}
		msg := strings.TrimSpace(stderr.buf.String())
		if msg == "" {
			msg = werr.Error()
		}
		r.Body = truncateUTF8(out, maxRecordedBody)
		return fail(ErrExec, fmt.Sprintf("%s exited with %v: %s", e.cfg.Command[0], werr, msg))
	}
	if stdout.over {
		return fail(schema.ErrTooLarge, fmt.Sprintf("output exceeds %d bytes", e.target.MaxResponseBytes))
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, bytes.TrimSpace(stdout.buf.Bytes())); err != nil {
		r.Body = truncateUTF8(out, maxRecordedBody)
		return fail(schema.ErrInvalidJSON, fmt.Sprintf("output is not JSON: %v", err))
	}
	r.Response = json.RawMessage(e.red.JSON(buf.Bytes()))
	r.Reply = schema.ReplyOf(r.Response)
	return r
}

func (e *execCaller) Open(context.Context, *schema.Script) (runner.Session, error) {
	return runner.Stateless(e), nil
}

func (e *execCaller) Close() {}

var _ io.Writer = (*capWriter)(nil)
