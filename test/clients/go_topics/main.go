// go-gitlab's TopicsService against Anvil: create, list, get, update, delete; prints what it decoded.
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
	created, _, err := client.Topics.CreateTopic(&gitlab.CreateTopicOptions{Name: gitlab.String("go-topic"), Title: gitlab.String("Go Topic")})
	fail(err)
	list, _, err := client.Topics.ListTopics(&gitlab.ListTopicsOptions{Search: gitlab.String("go-")})
	fail(err)
	got, _, err := client.Topics.GetTopic(created.ID)
	fail(err)
	updated, _, err := client.Topics.UpdateTopic(created.ID, &gitlab.UpdateTopicOptions{Description: gitlab.String("from go")})
	fail(err)
	_, err = client.Topics.DeleteTopic(created.ID)
	fail(err)
	_, resp, err := client.Topics.GetTopic(created.ID)
	status := 0
	if resp != nil {
		status = resp.StatusCode
	}
	out, _ := json.Marshal(map[string]interface{}{
		"created": created.Name, "listed": len(list), "listed_name": list[0].Name, "got_title": got.Title,
		"got_count": got.TotalProjectsCount, "updated": updated.Description, "after_delete": status, "error": err != nil,
	})
	fmt.Println(string(out))
}

func fail(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
