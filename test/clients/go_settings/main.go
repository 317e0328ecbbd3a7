// go-gitlab (the reference's typed Go client, Debian's golang-github-xanzy-go-gitlab-dev) reads
// and writes the application settings: any field whose JSON type differs from its struct's type
// fails the decode, and this program exits non-zero with the client's error.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/xanzy/go-gitlab"
)

func fail(what string, err error) {
	fmt.Fprintf(os.Stderr, "%s: %v\n", what, err)
	os.Exit(1)
}

func main() {
	c, err := gitlab.NewClient(os.Getenv("ANVIL_TOKEN"), gitlab.WithBaseURL(os.Getenv("ANVIL_URL")+"/api/v4"))
	if err != nil {
		fail("client", err)
	}
	got, _, err := c.Settings.GetSettings()
	if err != nil {
		fail("GET /application/settings", err)
	}
	put, _, err := c.Settings.UpdateSettings(&gitlab.UpdateSettingsOptions{
		PollingIntervalMultiplier:           float64Ptr(1.5),
		ExternalAuthorizationServiceTimeout: float64Ptr(2.25),
		DefaultProjectsLimit:                gitlab.Int(42),
		AfterSignUpText:                     gitlab.String("hi from go"),
	})
	if err != nil {
		fail("PUT /application/settings", err)
	}
	out, _ := json.Marshal(map[string]interface{}{
		"get_polling_interval_multiplier":            got.PollingIntervalMultiplier,
		"get_external_authorization_service_timeout": got.ExternalAuthorizationServiceTimeout,
		"put_polling_interval_multiplier":            put.PollingIntervalMultiplier,
		"put_external_authorization_service_timeout": put.ExternalAuthorizationServiceTimeout,
		"put_default_projects_limit":                 put.DefaultProjectsLimit,
		"put_after_sign_up_text":                     put.AfterSignUpText,
	})
	fmt.Println(string(out))
}

func float64Ptr(v float64) *float64 { return &v }
