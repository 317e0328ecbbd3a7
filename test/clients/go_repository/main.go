// go-gitlab's RepositoriesService and CommitsService against Anvil: archive, blob, raw blob,
// contributors, a commit's refs, cherry-pick, revert and their errors; prints what it decoded.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	gitlab "github.com/xanzy/go-gitlab"
)

func main() {
	client, err := gitlab.NewClient(os.Getenv("ANVIL_TOKEN"), gitlab.WithBaseURL(os.Getenv("ANVIL_URL")+"/api/v4"))
	fail(err)
	pid := os.Getenv("PROJECT_ID")
	change := os.Getenv("CHANGE_SHA")
	blobSha := os.Getenv("BLOB_SHA")
	archive, _, err := client.Repositories.Archive(pid, &gitlab.ArchiveOptions{Format: gitlab.String("tar.gz"), SHA: gitlab.String("main")})
	fail(err)
	blob, _, err := client.Repositories.Blob(pid, blobSha)
	fail(err)
	raw, _, err := client.Repositories.RawBlobContent(pid, blobSha)
	fail(err)
	contributors, _, err := client.Repositories.Contributors(pid, &gitlab.ListContributorsOptions{})
	fail(err)
	refs, _, err := client.Commits.GetCommitRefs(pid, change, &gitlab.GetCommitRefsOptions{Type: gitlab.String("all")})
	fail(err)
	picked, _, err := client.Commits.CherryPickCommit(pid, change, &gitlab.CherryPickCommitOptions{Branch: gitlab.String("go")})
	fail(err)
	reverted, _, err := client.Commits.RevertCommit(pid, picked.ID, &gitlab.RevertCommitOptions{Branch: gitlab.String("go")})
	fail(err)
	statusOf := func(resp *gitlab.Response, err error) int {
		if err == nil {
			return 0
		}
		if resp == nil {
			return -1
		}
		return resp.StatusCode
	}
	_, r1, e1 := client.Commits.CherryPickCommit(pid, change, &gitlab.CherryPickCommitOptions{Branch: gitlab.String("nope")})
	_, r2, e2 := client.Commits.CherryPickCommit(pid, change, &gitlab.CherryPickCommitOptions{Branch: gitlab.String("gb2")})
	reporter, err := gitlab.NewClient(os.Getenv("REPORTER_TOKEN"), gitlab.WithBaseURL(os.Getenv("ANVIL_URL")+"/api/v4"))
	fail(err)
	_, r3, e3 := reporter.Commits.RevertCommit(pid, change, &gitlab.RevertCommitOptions{Branch: gitlab.String("go")})
	anon, err := gitlab.NewClient("wrong", gitlab.WithBaseURL(os.Getenv("ANVIL_URL")+"/api/v4"))
	fail(err)
	_, r4, e4 := anon.Repositories.Contributors(pid, &gitlab.ListContributorsOptions{})
	refNames := []string{}
	for _, r := range refs {
		refNames = append(refNames, r.Type+":"+r.Name)
	}
	out, _ := json.Marshal(map[string]interface{}{
		"gzip":          len(archive) > 2 && archive[0] == 0x1f && archive[1] == 0x8b,
		"blob_len":      len(blob),
		"raw":           string(raw),
		"contributors":  len(contributors),
		"first_commits": contributors[0].Commits,
		"refs":          refNames,
		"picked_parent": len(picked.ParentIDs),
		"reverted":      reverted.Title,
		"errors":        []int{statusOf(r1, e1), statusOf(r2, e2), statusOf(r3, e3), statusOf(r4, e4)},
	})
	fmt.Println(string(out))
}

func fail(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
