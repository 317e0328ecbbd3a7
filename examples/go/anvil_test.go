// A Go suite against Anvil with the anviltest package (standard library only: it builds offline
// in module mode): TestMain starts one ephemeral server seeded from ../seed.yml, each test resets
// it first. The server is `npx anvil serve --ephemeral` (the anvil npm package); ANVIL_COMMAND
// names another build of the `anvil` command. go-gitlab works the same way:
// gitlab.NewClient(token, gitlab.WithBaseURL(anvil.URL+"/api/v4")).
package example

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"anvil/anviltest"
)

const aliceToken = "alice-test-token-0000000001"

var anvil *anviltest.Server

func TestMain(m *testing.M) {
	var err error
	anvil, err = anviltest.Start(anviltest.Options{Seed: "../seed.yml"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	anvil.Stop() // should this process die first, the server ends within two seconds anyway
	os.Exit(code)
}

// api sends a request as alice; the answer's status and JSON body.
func api(t *testing.T, method, path, body string) (int, any) {
	t.Helper()
	req, _ := http.NewRequest(method, anvil.URL+"/api/v4"+path, strings.NewReader(body))
	req.Header.Set("PRIVATE-TOKEN", aliceToken)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out any
	json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

func setup(t *testing.T) {
	t.Helper()
	if err := anvil.Reset(); err != nil {
		t.Fatal(err)
	}
}

func branches(t *testing.T) string {
	_, list := api(t, "GET", "/projects/acme%2Fdemo/repository/branches", "")
	var names []string
	for _, b := range list.([]any) {
		names = append(names, b.(map[string]any)["name"].(string))
	}
	return strings.Join(names, ",")
}

func TestSeededProject(t *testing.T) {
	setup(t)
	status, p := api(t, "GET", "/projects/acme%2Fdemo", "")
	if status != 200 || p.(map[string]any)["visibility"] != "private" {
		t.Fatalf("got %d %v", status, p)
	}
}

func TestBranchIsGoneAfterReset(t *testing.T) {
	setup(t)
	if status, _ := api(t, "POST", "/projects/acme%2Fdemo/repository/branches", `{"branch":"feature","ref":"main"}`); status != 201 {
		t.Fatalf("create: %d", status)
	}
	if got := branches(t); got != "feature,main" {
		t.Fatalf("branches %s", got)
	}
	setup(t)
	if got := branches(t); got != "main" {
		t.Fatalf("after the reset: branches %s", got)
	}
}

func TestMainIsProtected(t *testing.T) {
	setup(t)
	status, _ := api(t, "POST", "/projects/acme%2Fdemo/repository/files/x.txt", `{"branch":"main","content":"x","commit_message":"x"}`)
	if status != http.StatusForbidden {
		t.Fatalf("want 403, got %d", status)
	}
}

func TestFaultAndJournal(t *testing.T) {
	setup(t)
	if _, err := anvil.AddFault(anviltest.Rule{"method": "GET", "path": "/api/v4/projects/*", "status": 503, "times": 1}); err != nil {
		t.Fatal(err)
	}
	first, _ := api(t, "GET", "/projects/acme%2Fdemo", "")
	second, _ := api(t, "GET", "/projects/acme%2Fdemo", "")
	if first != 503 || second != 200 {
		t.Fatalf("got %d then %d", first, second)
	}
	seen, err := anvil.Requests(anviltest.Filter{Path: "/api/v4/projects/*", User: "alice"})
	if err != nil || len(seen) != 2 || *seen[0].Status != 503 || seen[0].FaultID == nil || seen[0].Request.Headers["private-token"] != "[REDACTED]" {
		t.Fatalf("journal %+v %v", seen, err)
	}
}
