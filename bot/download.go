package bot

import (
	"context"
	"errors"
)

// ErrNoBot means the bot asked for is not one this process runs.
var ErrNoBot = errors.New("bot: the bot is not run by this process")

// Download fetches a file a user of bot service sent (by its file_id), outside any update: up to
// max bytes (ErrFileTooBig beyond), within ctx's deadline. It returns the content and the path
// Telegram gives the file; ErrNoBot when the bot is not run by this process. Features that must
// not hold an update's transaction for a download record the file_id there and fetch the file
// afterwards with Download.
func (t *Transport) Download(ctx context.Context, service int, fileID string, max int64) ([]byte, string, error) {
	api := t.api(service)
	if api == nil {
		return nil, "", ErrNoBot
	}
	return api.download(ctx, fileID, max)
}
