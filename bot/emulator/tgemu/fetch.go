package tgemu

import (
	"io"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"strings"
	"time"
)

// # Photos by URL
//
// A photo given by an http(s) URL (the photo of an inline result, the media of an inline
// message's editMessageMedia) is fetched as Telegram fetches it: an HTTP GET, which must answer
// 200 with an image (GIF, PNG or JPEG, checked as an upload is) of at most 5 MB. A fetch that
// fails (no answer, another status, too large) is refused with "failed to get HTTP URL
// content", an answer that is no image with "wrong type of the web page content". The photo is
// stored as a file of the bot, as an upload would be, so the message carries its file_id and the
// web chat shows it. Like Telegram, the emulator keeps what it fetched by URL and never fetches
// the same URL again for the bot: an address whose content changes shows its first content, so
// a bot must change the address with the picture.
//
// Telegram fetches from the internet, so an address only this machine or a private network
// reaches (a loopback, private, link-local or unspecified IP address, or the name localhost)
// is one it refuses before fetching anything: a photo result of answerInlineQuery with
// "WEBDOCUMENT_URL_INVALID" (what the Bot API answers a loopback photo_url), and the media of an
// edit with "wrong file identifier/HTTP URL specified". The emulator runs on the bot's machine
// and could fetch such an address, which would hide that the bot gives Telegram one; so it
// refuses them too, but those under Options.LocalURL (and AllowLocal): the address the operator
// set as PUBLIC_URL for a trial on one machine. Other names are taken as public: the emulator
// resolves no names to decide.

// maxURLPhotoSize is the largest photo Telegram takes by URL.
const maxURLPhotoSize = 5 << 20

// fetchTimeout bounds one fetch of a URL.
const fetchTimeout = 10 * time.Second

// fetchClient fetches the photos given by URL.
var fetchClient = &http.Client{Timeout: fetchTimeout}

// AllowLocal lets the emulator fetch photos from the addresses under prefix although they are
// on this machine or a private network, as Options.LocalURL does.
func (s *Server) AllowLocal(prefix string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.local = append(s.local, prefix)
}

// unreachable reports whether Telegram could not fetch u: its host is local or private (see
// above) and no allowed prefix (Options.LocalURL, AllowLocal) covers it.
func (s *Server) unreachable(u string) bool {
	pu, err := url.Parse(u)
	if err != nil {
		return true
	}
	host := strings.ToLower(strings.TrimSuffix(pu.Hostname(), "."))
	if host != "localhost" && !strings.HasSuffix(host, ".localhost") {
		ip, err := netip.ParseAddr(host)
		if err != nil {
			return false // a name: taken as public
		}
		ip = ip.Unmap()
		if !ip.IsLoopback() && !ip.IsPrivate() && !ip.IsLinkLocalUnicast() && !ip.IsUnspecified() {
			return false
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, prefix := range s.local {
		prefix = strings.TrimRight(prefix, "/")
		if u == prefix || strings.HasPrefix(u, prefix+"/") || strings.HasPrefix(u, prefix+"?") {
			return false
		}
	}
	return true
}

// fetchPhoto fetches the photo at u and checks it as Telegram does.
func fetchPhoto(u string) (*prepared, *apiError) {
	failed := badRequest("failed to get HTTP URL content")
	resp, err := fetchClient.Get(u)
	if err != nil {
		return nil, failed
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, failed
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxURLPhotoSize+1))
	if err != nil || len(data) > maxURLPhotoSize {
		return nil, failed
	}
	wrongType := badRequest("wrong type of the web page content")
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err != nil || !strings.HasPrefix(mt, "image/") {
		return nil, wrongType
	}
	pr, e := preparePhoto(upload{name: path.Base(resp.Request.URL.Path), data: data})
	if e != nil && e.description == "Bad Request: IMAGE_PROCESS_FAILED" {
		return nil, wrongType
	}
	return pr, e
}

// photoFromURL returns the bot's photo fetched from u: fetched now (without the bot's lock held)
// and stored, or the one fetched before.
func (b *Bot) photoFromURL(u string) (*file, *apiError) {
	b.mu.Lock()
	f := b.fetchedLocked(u)
	b.mu.Unlock()
	if f != nil {
		return f, nil
	}
	if b.srv.unreachable(u) {
		return nil, badRequest("wrong file identifier/HTTP URL specified")
	}
	pr, e := fetchPhoto(u)
	if e != nil {
		return nil, e
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if f := b.fetchedLocked(u); f != nil {
		return f, nil // fetched meanwhile
	}
	f, e = b.storeLocked(pr)
	if e != nil {
		return nil, e
	}
	st := b.inlineLocked()
	if st.fetched == nil {
		st.fetched = map[string]string{}
	}
	st.fetched[u] = f.id
	return f, nil
}

// fetchedLocked returns the photo the bot fetched from u before, nil for none.
func (b *Bot) fetchedLocked(u string) *file {
	if id := b.inlineLocked().fetched[u]; id != "" {
		return b.srv.file(id)
	}
	return nil
}
