// A Go suite against Anvil with go-gitlab: TestMain starts one ephemeral server seeded from
// ../seed.yml, and each test resets it first. The server is `npx anvil serve --ephemeral`
// (the anvil npm package); ANVIL_COMMAND names another build of the `anvil` command.
package example

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/xanzy/go-gitlab"
)

const aliceToken = "alice-test-token-0000000001"

// anvil is the suite's server: its ready line.
var anvil struct {
	URL   string `json:"url"`
	Token string `json:"token"`
	PID   int    `json:"pid"`
}

func TestMain(m *testing.M) {
	command := strings.Fields(os.Getenv("ANVIL_COMMAND"))
	if len(command) == 0 {
		command = []string{"npx", "anvil"}
	}
	cmd := exec.Command(command[0], append(command[1:], "serve", "--ephemeral", "--seed", "../seed.yml")...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ANVIL_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "anvil:", err)
		os.Exit(1)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err == nil {
		err = json.Unmarshal([]byte(line), &anvil)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "anvil did not start:", err)
		os.Exit(1)
	}
	code := m.Run()
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	os.Exit(code)
}

// setup resets the server to its seeded state and returns a client acting as alice.
func setup(t *testing.T) *gitlab.Client {
	t.Helper()
	req, _ := http.NewRequest("POST", anvil.URL+"/-/test/reset", nil)
	req.Header.Set("PRIVATE-TOKEN", anvil.Token)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusNoContent {
		t.Fatalf("reset: %v %v", err, res)
	}
	res.Body.Close()
	c, err := gitlab.NewClient(aliceToken, gitlab.WithBaseURL(anvil.URL+"/api/v4"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSeededProject(t *testing.T) {
	c := setup(t)
	p, _, err := c.Projects.GetProject("acme/demo", nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Visibility != gitlab.PrivateVisibility || p.DefaultBranch != "main" {
		t.Fatalf("got %s %s", p.Visibility, p.DefaultBranch)
	}
}

func branchNames(t *testing.T, c *gitlab.Client) []string {
	t.Helper()
	list, _, err := c.Branches.ListBranches("acme/demo", nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range list {
		names = append(names, b.Name)
	}
	return names
}

func TestBranchIsGoneAfterReset(t *testing.T) {
	c := setup(t)
	if _, _, err := c.Branches.CreateBranch("acme/demo", &gitlab.CreateBranchOptions{Branch: gitlab.String("feature"), Ref: gitlab.String("main")}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(branchNames(t, c), ","); got != "feature,main" {
		t.Fatalf("branches %s", got)
	}
	c = setup(t)
	if got := strings.Join(branchNames(t, c), ","); got != "main" {
		t.Fatalf("after the reset: branches %s", got)
	}
}

func TestMainIsProtected(t *testing.T) {
	c := setup(t)
	_, res, err := c.RepositoryFiles.CreateFile("acme/demo", "x.txt", &gitlab.CreateFileOptions{
		Branch: gitlab.String("main"), Content: gitlab.String("x"), CommitMessage: gitlab.String("x"),
	})
	if err == nil || res == nil || res.StatusCode != http.StatusForbidden {
		t.Fatalf("want 403, got %v %v", res, err)
	}
}
