// Package anviltest starts an ephemeral Anvil for a Go test suite and drives its test endpoints
// (/-/test/…). It needs nothing but the standard library. It ships in the anvil npm package
// (node_modules/anvil/dist/go/anviltest); in your go.mod:
//
//	require anvil/anviltest v0.0.0
//	replace anvil/anviltest => ./node_modules/anvil/dist/go/anviltest
//
// Should the test binary die without Stop (a panic, SIGKILL, go test's timeout), the server sees
// it and ends within two seconds, its data dir removed.
package anviltest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Options of Start; the zero value starts an unseeded server through `npx anvil`.
type Options struct {
	// Seed is the path of a seed file (YAML or JSON).
	Seed string
	// Command runs anvil (default: ANVIL_COMMAND split on spaces, else `npx anvil`).
	Command []string
	// Clock lets tests move the clock.
	Clock bool
	// Env is more environment for the server (ANVIL_*=…); the caller's own ANVIL_* are not passed on.
	Env []string
}

// Server is a running ephemeral Anvil: its ready line.
type Server struct {
	URL     string `json:"url"`
	Token   string `json:"token"`
	PID     int    `json:"pid"`
	DataDir string `json:"data_dir"`
	cmd     *exec.Cmd
}

// Start runs `anvil serve --ephemeral` and returns once it is ready.
func Start(opts Options) (*Server, error) {
	command := opts.Command
	if len(command) == 0 {
		command = strings.Fields(os.Getenv("ANVIL_COMMAND"))
	}
	if len(command) == 0 {
		command = []string{"npx", "anvil"}
	}
	args := append(append([]string{}, command[1:]...), "serve", "--ephemeral")
	if opts.Seed != "" {
		seed, err := filepath.Abs(opts.Seed)
		if err != nil {
			return nil, err
		}
		args = append(args, "--seed", seed)
	}
	if opts.Clock {
		args = append(args, "--clock")
	}
	cmd := exec.Command(command[0], args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ANVIL_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, opts.Env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	s := &Server{cmd: cmd}
	if err == nil {
		err = json.Unmarshal([]byte(line), s)
	}
	if err != nil {
		cmd.Wait()
		return nil, fmt.Errorf("anvil did not start: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	// The logs are not kept: stderr goes on into the buffer's place, discarded.
	cmd.Stderr = io.Discard
	go io.Copy(io.Discard, out)
	return s, nil
}

// Stop signals the server itself (npx passes no signal on) and waits for it to end.
func (s *Server) Stop() error {
	if p, err := os.FindProcess(s.PID); err == nil {
		p.Signal(syscall.SIGTERM)
	}
	if s.cmd != nil {
		return s.cmd.Wait()
	}
	return nil
}

// Call sends a request to the server as root; a JSON body in and out (either may be nil).
func (s *Server) Call(method, path string, body, out any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.URL+path, r)
	if err != nil {
		return err
	}
	req.Header.Set("PRIVATE-TOKEN", s.Token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	text, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode >= 300 {
		return fmt.Errorf("%s %s answered %d: %s", method, path, res.StatusCode, text)
	}
	if out != nil && len(text) > 0 {
		return json.Unmarshal(text, out)
	}
	return nil
}

// Reset goes back to the state right after start-up and seeding.
func (s *Server) Reset() error { return s.Call("POST", "/-/test/reset", nil, nil) }

// Snapshot saves the whole state under a name; Restore puts it back.
func (s *Server) Snapshot(name string) error {
	return s.Call("POST", "/-/test/snapshots", map[string]string{"name": name}, nil)
}

func (s *Server) Restore(name string) error {
	return s.Call("POST", "/-/test/snapshots/"+url.PathEscape(name)+"/restore", nil, nil)
}

// Seed applies one more seed document; a reset then comes back to its result.
func (s *Server) Seed(seed map[string]any) error {
	return s.Call("POST", "/-/test/seed", map[string]any{"seed": seed}, nil)
}

// Request is one entry of the request journal; secrets are masked.
type Request struct {
	ID         int     `json:"id"`
	CreatedAt  string  `json:"created_at"`
	Method     string  `json:"method"`
	URL        string  `json:"url"`
	Path       string  `json:"path"`
	Status     *int    `json:"status"`
	User       *string `json:"user"`
	DurationMs float64 `json:"duration_ms"`
	FaultID    *int    `json:"fault_id"`
	Request    Message `json:"request"`
	Response   Message `json:"response"`
}

// Message is a request's or an answer's headers and body, as kept.
type Message struct {
	Headers       map[string]string `json:"headers"`
	Body          *string           `json:"body"`
	BodyTruncated bool              `json:"body_truncated"`
}

// Filter selects journal entries: Path is a pattern (* within a segment, ** across), Status a
// code, "4xx" or "none", Since an entry id. Empty fields select everything.
type Filter struct {
	Method, Path, User, Status string
	Since                      int
}

func (f Filter) query() string {
	q := url.Values{}
	for k, v := range map[string]string{"method": f.Method, "path": f.Path, "user": f.User, "status": f.Status} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if f.Since > 0 {
		q.Set("since", fmt.Sprint(f.Since))
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// Requests lists the journal's entries a filter selects, oldest first.
func (s *Server) Requests(f Filter) ([]Request, error) {
	var out []Request
	err := s.Call("GET", "/-/test/requests"+f.query(), nil, &out)
	return out, err
}

// RequestCount counts them.
func (s *Server) RequestCount(f Filter) (int, error) {
	var out struct{ Count int }
	err := s.Call("GET", "/-/test/requests/count"+f.query(), nil, &out)
	return out.Count, err
}

// Rule is a fault or latency rule, as POST /-/test/faults takes it (method, path or url, user,
// status, headers, body, drop, reset, delay, times); the answer adds id and hits.
type Rule map[string]any

// AddFault adds a rule for requests to the server; ClearFaults removes them all.
func (s *Server) AddFault(r Rule) (Rule, error) {
	var out Rule
	err := s.Call("POST", "/-/test/faults", r, &out)
	return out, err
}

func (s *Server) ClearFaults() error { return s.Call("DELETE", "/-/test/faults", nil, nil) }

// AddInboxFault adds a rule for the delivery inbox's answers to hooks (by url); ClearInboxFaults removes them all.
func (s *Server) AddInboxFault(r Rule) (Rule, error) {
	var out Rule
	err := s.Call("POST", "/-/test/inbox/faults", r, &out)
	return out, err
}

func (s *Server) ClearInboxFaults() error { return s.Call("DELETE", "/-/test/inbox/faults", nil, nil) }

func (s *Server) moveClock(body map[string]any) (time.Time, error) {
	var out struct{ Now time.Time }
	err := s.Call("POST", "/-/test/clock", body, &out)
	return out.Now, err
}

// Now is the server's time.
func (s *Server) Now() (time.Time, error) {
	var out struct{ Now time.Time }
	err := s.Call("GET", "/-/test/clock", nil, &out)
	return out.Now, err
}

// Advance moves the clock by a duration such as "25h", "90s", "2d" (needs Options.Clock).
func (s *Server) Advance(d string) (time.Time, error) { return s.moveClock(map[string]any{"advance": d}) }

// SetClock moves the clock to an instant.
func (s *Server) SetClock(t time.Time) (time.Time, error) {
	return s.moveClock(map[string]any{"set": t.UTC().Format(time.RFC3339Nano)})
}

// Freeze stops the clock (at t unless t is zero); Unfreeze lets it go on; RealTime goes back to the system's time.
func (s *Server) Freeze(t time.Time) (time.Time, error) {
	body := map[string]any{"freeze": true}
	if !t.IsZero() {
		body["set"] = t.UTC().Format(time.RFC3339Nano)
	}
	return s.moveClock(body)
}

func (s *Server) Unfreeze() (time.Time, error) { return s.moveClock(map[string]any{"freeze": false}) }

func (s *Server) RealTime() (time.Time, error) { return s.moveClock(map[string]any{"real": true}) }
