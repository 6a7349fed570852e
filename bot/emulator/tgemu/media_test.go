package tgemu

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// pngOf makes a PNG of w×h pixels in one colour.
func pngOf(t *testing.T, w, h int, c color.Color) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// multipartCall posts fields and files as multipart/form-data, as bots upload files.
func multipartCall(t *testing.T, srv *httptest.Server, token, method string, fields map[string]string, files map[string][]byte) (int, tgbotapi.APIResponse) {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, v := range fields {
		w.WriteField(k, v)
	}
	for name, data := range files {
		part, err := w.CreateFormFile(name, name+".png")
		if err != nil {
			t.Fatal(err)
		}
		part.Write(data)
	}
	w.Close()
	resp, err := http.Post(srv.URL+"/bot"+token+"/"+method, w.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out tgbotapi.APIResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// message returns a function that decodes the Message of a successful answer:
// message(t)(call(...)).
func message(t *testing.T) func(int, tgbotapi.APIResponse) tgbotapi.Message {
	return func(code int, resp tgbotapi.APIResponse) tgbotapi.Message {
		t.Helper()
		if code != 200 || !resp.Ok {
			t.Fatalf("got %d %s", code, resp.Description)
		}
		var m tgbotapi.Message
		if err := json.Unmarshal(resp.Result, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
}

// wantError checks a refusal: 400 and Telegram's description.
func wantError(t *testing.T, what string, code int, resp tgbotapi.APIResponse, desc string) {
	t.Helper()
	if code != 400 || resp.Ok || resp.Description != "Bad Request: "+desc {
		t.Errorf("%s: got %d %q, want 400 %q", what, code, resp.Description, "Bad Request: "+desc)
	}
}

// largest is the file_id of the biggest size of a photo.
func largest(m tgbotapi.Message) string {
	if len(m.Photo) == 0 {
		return ""
	}
	return m.Photo[len(m.Photo)-1].FileID
}

const keyboard = `{"inline_keyboard":[[{"text":"Move","callback_data":"move"}]]}`

// Ensure sendPhoto takes a photo as an upload, by attach:// and by file_id, with an HTML caption
// and buttons, and answers with the photo in Telegram's sizes; and refuses what Telegram refuses.
func TestSendPhoto(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	b := emu.AddBot("1:T", "b")
	b.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann"})
	srv := httptest.NewServer(emu)
	defer srv.Close()
	board := pngOf(t, 400, 300, color.RGBA{200, 0, 0, 255})

	m := message(t)(multipartCall(t, srv, "1:T", "sendPhoto",
		map[string]string{"chat_id": "7", "caption": "<b>White</b> to move", "parse_mode": "HTML", "reply_markup": keyboard},
		map[string][]byte{"photo": board}))
	// A 400×300 photo: the 90 and 320 boxes, then itself.
	var dims []string
	for _, s := range m.Photo {
		dims = append(dims, strconv.Itoa(s.Width)+"x"+strconv.Itoa(s.Height))
	}
	if got := strings.Join(dims, " "); got != "90x67 320x240 400x300" {
		t.Errorf("photo sizes %s, want 90x67 320x240 400x300", got)
	}
	if m.Caption != "White to move" || m.Text != "" {
		t.Errorf("caption %q, text %q", m.Caption, m.Text)
	}
	if m.ReplyMarkup == nil || m.ReplyMarkup.InlineKeyboard[0][0].Text != "Move" {
		t.Errorf("reply markup %+v", m.ReplyMarkup)
	}
	if got := b.Messages(7)[0]; got.Photo != largest(m) || got.Text != "<b>White</b> to move" || got.ParseMode != "HTML" {
		t.Errorf("the chat shows %+v", got)
	}

	// The file as the bot downloads it is the photo sent.
	_, resp := call(t, srv, "1:T", "getFile", url.Values{"file_id": {largest(m)}})
	var f tgbotapi.File
	json.Unmarshal(resp.Result, &f)
	got, err := http.Get(srv.URL + "/file/bot1:T/" + f.FilePath)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(got.Body)
	got.Body.Close()
	if !bytes.Equal(data, board) {
		t.Errorf("downloaded %d bytes, want the %d sent", len(data), len(board))
	}

	// A smaller copy, made when it is first asked for: a JPEG of its size, of the photo's pixels,
	// whose size getFile tells.
	_, resp = call(t, srv, "1:T", "getFile", url.Values{"file_id": {m.Photo[1].FileID}})
	var small tgbotapi.File
	json.Unmarshal(resp.Result, &small)
	got, err = http.Get(srv.URL + "/file/bot1:T/" + small.FilePath)
	if err != nil {
		t.Fatal(err)
	}
	data, _ = io.ReadAll(got.Body)
	got.Body.Close()
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil || len(data) != small.FileSize {
		t.Fatalf("the 320 copy: %d bytes (getFile says %d): %v", len(data), small.FileSize, err)
	}
	if b := img.Bounds(); b.Dx() != 320 || b.Dy() != 240 {
		t.Errorf("the 320 copy is %v", b)
	}
	if r, g, bl, _ := img.At(160, 120).RGBA(); r>>8 < 180 || g>>8 > 30 || bl>>8 > 30 {
		t.Errorf("the 320 copy's middle is %d,%d,%d, not the photo's red", r>>8, g>>8, bl>>8)
	}

	// Again by file_id, of the largest size or of a smaller one: the same photo.
	for _, id := range []string{largest(m), m.Photo[0].FileID} {
		again := message(t)(call(t, srv, "1:T", "sendPhoto", url.Values{"chat_id": {"7"}, "photo": {id}}))
		if largest(again) != largest(m) || len(again.Photo) != 3 {
			t.Errorf("by file_id %s: %+v", id, again.Photo)
		}
	}
	// By attach://, naming the upload.
	att := message(t)(multipartCall(t, srv, "1:T", "sendPhoto", map[string]string{"chat_id": "7", "photo": "attach://board"},
		map[string][]byte{"board": pngOf(t, 50, 50, color.White)}))
	if len(att.Photo) != 1 || att.Photo[0].Width != 50 {
		t.Errorf("by attach://: %+v", att.Photo)
	}

	doc := message(t)(multipartCall(t, srv, "1:T", "sendDocument", map[string]string{"chat_id": "7"},
		map[string][]byte{"document": []byte("a save")}))
	for _, c := range []struct {
		name   string
		fields map[string]string
		files  map[string][]byte
		desc   string
	}{
		{"NoPhoto", map[string]string{"chat_id": "7"}, nil, "there is no photo in the request"},
		{"UnknownID", map[string]string{"chat_id": "7", "photo": "nope"}, nil, "wrong file identifier/HTTP URL specified"},
		{"DocumentID", map[string]string{"chat_id": "7", "photo": doc.Document.FileID}, nil, "can't use file of type Document as Photo"},
		{"NotAnImage", map[string]string{"chat_id": "7"}, map[string][]byte{"photo": []byte("GIF? no")}, "IMAGE_PROCESS_FAILED"},
		{"Truncated", map[string]string{"chat_id": "7"}, map[string][]byte{"photo": board[:len(board)/2]}, "IMAGE_PROCESS_FAILED"},
		{"Thin", map[string]string{"chat_id": "7"}, map[string][]byte{"photo": pngOf(t, 1, 21, color.Black)}, "PHOTO_INVALID_DIMENSIONS"},
		{"MissingAttach", map[string]string{"chat_id": "7", "photo": "attach://other"}, map[string][]byte{"board": board}, "there is no photo in the request"},
		{"LongCaption", map[string]string{"chat_id": "7", "caption": strings.Repeat("x", 1025)}, map[string][]byte{"photo": board}, "message caption is too long"},
		{"BadCaption", map[string]string{"chat_id": "7", "caption": "<b>x", "parse_mode": "HTML"}, map[string][]byte{"photo": board}, `can't parse entities: Can't find end tag corresponding to start tag "b"`},
	} {
		code, resp := multipartCall(t, srv, "1:T", "sendPhoto", c.fields, c.files)
		wantError(t, c.name, code, resp, c.desc)
	}
	if _, resp := call(t, srv, "2:T", "getFile", url.Values{"file_id": {largest(m)}}); resp.Ok {
		t.Error("another bot could use the photo's file_id")
	}
}

// Ensure editMessageMedia replaces a photo in place, by upload (attach://) and by file_id, with
// the new media's caption and the new keyboard, and editMessageCaption its caption; both refuse
// what Telegram refuses, "message is not modified" included.
func TestEditMedia(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	b := emu.AddBot("1:T", "b")
	b.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann"})
	srv := httptest.NewServer(emu)
	defer srv.Close()
	events, stop := b.Subscribe(7)
	defer stop()

	first := message(t)(multipartCall(t, srv, "1:T", "sendPhoto",
		map[string]string{"chat_id": "7", "caption": "Move 1", "reply_markup": keyboard},
		map[string][]byte{"photo": pngOf(t, 200, 200, color.White)}))
	id := strconv.Itoa(first.MessageID)
	<-events

	media := `{"type":"photo","media":"attach://next","caption":"<i>Move 2</i>","parse_mode":"HTML"}`
	kb2 := `{"inline_keyboard":[[{"text":"Undo","callback_data":"undo"}]]}`
	edited := message(t)(multipartCall(t, srv, "1:T", "editMessageMedia",
		map[string]string{"chat_id": "7", "message_id": id, "media": media, "reply_markup": kb2},
		map[string][]byte{"next": pngOf(t, 200, 200, color.Black)}))
	if edited.MessageID != first.MessageID || largest(edited) == largest(first) || edited.Caption != "Move 2" {
		t.Fatalf("edited: %+v", edited)
	}
	if ev := <-events; ev.Type != "edit" || ev.Message.Photo != largest(edited) || ev.Message.Text != "<i>Move 2</i>" ||
		!ev.Message.Edited || ev.Message.Keyboard[0][0].Data != "undo" {
		t.Errorf("event %+v", ev)
	}
	if n := len(b.Messages(7)); n != 1 {
		t.Errorf("%d messages in the chat, want the one edited in place", n)
	}

	// The same media, caption and keyboard again change nothing.
	code, resp := call(t, srv, "1:T", "editMessageMedia", url.Values{"chat_id": {"7"}, "message_id": {id}, "reply_markup": {kb2},
		"media": {`{"type":"photo","media":"` + largest(edited) + `","caption":"<i>Move 2</i>","parse_mode":"HTML"}`}})
	wantError(t, "the same media", code, resp, "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")

	// Back to the first photo by file_id, without caption or keyboard: both go.
	back := message(t)(call(t, srv, "1:T", "editMessageMedia", url.Values{"chat_id": {"7"}, "message_id": {id},
		"media": {`{"type":"photo","media":"` + first.Photo[0].FileID + `"}`}}))
	if largest(back) != largest(first) || back.Caption != "" || back.ReplyMarkup != nil {
		t.Errorf("by file_id: %+v", back)
	}

	capt := message(t)(call(t, srv, "1:T", "editMessageCaption", url.Values{"chat_id": {"7"}, "message_id": {id},
		"caption": {"Black <b>wins</b>"}, "parse_mode": {"HTML"}, "reply_markup": {keyboard}}))
	if capt.Caption != "Black wins" || largest(capt) != largest(first) || capt.ReplyMarkup == nil {
		t.Errorf("editMessageCaption: %+v", capt)
	}
	code, resp = call(t, srv, "1:T", "editMessageCaption", url.Values{"chat_id": {"7"}, "message_id": {id},
		"caption": {"Black <b>wins</b>"}, "parse_mode": {"HTML"}, "reply_markup": {keyboard}})
	wantError(t, "the same caption", code, resp, "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")

	text := message(t)(call(t, srv, "1:T", "sendMessage", url.Values{"chat_id": {"7"}, "text": {"plain"}}))
	textID := strconv.Itoa(text.MessageID)
	userMsg, _ := b.SendText(7, "hi")
	photoMedia := `{"type":"photo","media":"` + largest(first) + `"}`
	for _, c := range []struct {
		name, method string
		form         url.Values
		desc         string
	}{
		{"NoMedia", "editMessageMedia", url.Values{"chat_id": {"7"}, "message_id": {id}}, `parameter "media" is required`},
		{"BadJSON", "editMessageMedia", url.Values{"chat_id": {"7"}, "message_id": {id}, "media": {"{"}}, "can't parse input media JSON object"},
		{"NoType", "editMessageMedia", url.Values{"chat_id": {"7"}, "message_id": {id}, "media": {`{"media":"x"}`}}, `can't parse InputMedia: Can't find field "type"`},
		{"NoFile", "editMessageMedia", url.Values{"chat_id": {"7"}, "message_id": {id}, "media": {`{"type":"photo","media":"attach://gone"}`}}, "can't parse InputMedia: media not found"},
		{"Video", "editMessageMedia", url.Values{"chat_id": {"7"}, "message_id": {id}, "media": {`{"type":"video","media":"x"}`}}, `can't parse InputMedia: type "video" is not emulated (photo and document are)`},
		{"Sticker", "editMessageMedia", url.Values{"chat_id": {"7"}, "message_id": {id}, "media": {`{"type":"sticker","media":"x"}`}}, `can't parse InputMedia: type "sticker" is unsupported`},
		{"UnknownFile", "editMessageMedia", url.Values{"chat_id": {"7"}, "message_id": {id}, "media": {`{"type":"photo","media":"nope"}`}}, "wrong file identifier/HTTP URL specified"},
		{"Missing", "editMessageMedia", url.Values{"chat_id": {"7"}, "message_id": {"999"}, "media": {photoMedia}}, "message to edit not found"},
		{"UsersMessage", "editMessageMedia", url.Values{"chat_id": {"7"}, "message_id": {strconv.Itoa(userMsg)}, "media": {photoMedia}}, "message can't be edited"},
		{"NoMessageID", "editMessageMedia", url.Values{"media": {photoMedia}}, "message identifier is not specified"},
		{"CaptionOfText", "editMessageCaption", url.Values{"chat_id": {"7"}, "message_id": {textID}, "caption": {"x"}}, "there is no caption in the message to edit"},
		{"TextOfPhoto", "editMessageText", url.Values{"chat_id": {"7"}, "message_id": {id}, "text": {"x"}}, "there is no text in the message to edit"},
		{"LongCaption", "editMessageCaption", url.Values{"chat_id": {"7"}, "message_id": {id}, "caption": {strings.Repeat("я", 1025)}}, "message caption is too long"},
	} {
		code, resp := call(t, srv, "1:T", c.method, c.form)
		wantError(t, c.name, code, resp, c.desc)
	}
	// A text message takes media: it becomes a photo, the caption in place of its text.
	textEdited := message(t)(call(t, srv, "1:T", "editMessageMedia", url.Values{"chat_id": {"7"}, "message_id": {textID},
		"media": {`{"type":"photo","media":"` + largest(first) + `","caption":"now a photo"}`}}))
	if len(textEdited.Photo) == 0 || textEdited.Caption != "now a photo" || textEdited.Text != "" {
		t.Errorf("a text message given media: %+v", textEdited)
	}
}

// Ensure the Telegram library's own editMessageMedia and editMessageCaption requests, as a bot
// built on it sends them, are understood.
func TestEditMediaWithLibrary(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	b := emu.AddBot("1:T", "b")
	b.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann"})
	srv := httptest.NewServer(emu)
	defer srv.Close()
	api, err := tgbotapi.NewBotAPIWithClient("1:T", Endpoint(srv.URL), srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	photo := tgbotapi.NewPhoto(7, tgbotapi.FileBytes{Name: "board.png", Bytes: pngOf(t, 100, 80, color.White)})
	photo.Caption = "Move 1"
	sent, err := api.Send(photo)
	if err != nil {
		t.Fatal(err)
	}
	next := tgbotapi.NewInputMediaPhoto(tgbotapi.FileBytes{Name: "board.png", Bytes: pngOf(t, 100, 80, color.Black)})
	next.Caption = "Move 2"
	edit := tgbotapi.EditMessageMediaConfig{BaseEdit: tgbotapi.BaseEdit{ChatID: 7, MessageID: sent.MessageID}, Media: next}
	if _, err := api.Request(edit); err != nil {
		t.Fatalf("editMessageMedia: %v", err)
	}
	if _, err := api.Request(tgbotapi.NewEditMessageCaption(7, sent.MessageID, "Move 3")); err != nil {
		t.Fatalf("editMessageCaption: %v", err)
	}
	m := b.Messages(7)[0]
	if m.Photo == largest(sent) || m.Text != "Move 3" || !m.Edited {
		t.Errorf("the chat shows %+v", m)
	}
}
