package tgemu

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // photos may be GIF, PNG or JPEG
	"image/jpeg"
	_ "image/png"
	"net/http"
	"strconv"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Telegram's limits on photos: the file size, the sum of the sides and the ratio of the longer
// side to the shorter.
const (
	maxPhotoSize  = 10 << 20
	maxPhotoSides = 10000
	maxPhotoRatio = 20
)

// photoBoxes are the sides of the boxes Telegram fits the smaller copies of a photo into (the
// sizes "s", "m", "x" and "y"); a photo gets the copies smaller than itself, then itself.
var photoBoxes = []int{90, 320, 800, 1280}

// prepared is an uploaded file of a request, checked and ready to be stored: a photo comes with
// its pixel size and smaller copies, made before any lock is taken.
type prepared struct {
	name, mime    string
	data          []byte
	kind          string // "photo" or "document"
	width, height int
	thumbs        []thumb // smallest first
}

// thumb is the pixel size of a smaller copy of a photo. The copy itself is made when it is first
// read (smallCopy): Telegram makes its copies on its own servers, while the emulator shares the
// bot's cores in the load checks, so it makes them only for a viewer that asks.
type thumb struct {
	width, height int
}

// preparePhoto checks an uploaded photo as Telegram does (a GIF, PNG or JPEG image, at most
// 10 MB, sides adding up to at most 10000, a ratio of at most 20) and sizes its smaller copies.
// A photo large enough to have copies is decoded whole, as they will be made from its pixels; a
// photo too small to have any is taken on the strength of its header.
func preparePhoto(up upload) (*prepared, *apiError) {
	if len(up.data) == 0 {
		return nil, badRequest("file must be non-empty")
	}
	if len(up.data) > maxPhotoSize {
		return nil, badRequest("PHOTO_SAVE_FILE_INVALID")
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(up.data))
	if err != nil {
		return nil, badRequest("IMAGE_PROCESS_FAILED")
	}
	w, h := cfg.Width, cfg.Height
	if w <= 0 || h <= 0 || w+h > maxPhotoSides || max(w, h) > maxPhotoRatio*min(w, h) {
		return nil, badRequest("PHOTO_INVALID_DIMENSIONS")
	}
	pr := &prepared{name: up.name, mime: http.DetectContentType(up.data), data: up.data, kind: "photo", width: w, height: h}
	decoded := false
	for _, box := range photoBoxes {
		if max(w, h) <= box {
			break
		}
		if !decoded {
			if _, _, err = image.Decode(bytes.NewReader(up.data)); err != nil {
				return nil, badRequest("IMAGE_PROCESS_FAILED")
			}
			decoded = true
		}
		pr.thumbs = append(pr.thumbs, thumb{width: max(1, w*box/max(w, h)), height: max(1, h*box/max(w, h))})
	}
	return pr, nil
}

// smallCopy returns the content of a smaller copy of a photo (a file with a parent), made from
// the photo the first time it is read and kept. Its size is not told in the photo's sizes
// (file_size is optional in the Bot API): it is known only once the copy is made.
func (s *Server) smallCopy(f *file) ([]byte, error) {
	f.copyOnce.Do(func() {
		s.mu.Lock()
		parent := s.files[f.parent]
		s.mu.Unlock()
		if parent == nil {
			f.copyErr = fmt.Errorf("tgemu: file %s: its photo %s is gone", f.id, f.parent)
			return
		}
		data, err := s.content(parent)
		if err != nil {
			f.copyErr = err
			return
		}
		img, _, err := image.Decode(bytes.NewReader(data))
		if err != nil {
			f.copyErr = fmt.Errorf("tgemu: file %s: decode its photo: %w", f.id, err)
			return
		}
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, scale(img, f.width, f.height), &jpeg.Options{Quality: 80}); err != nil {
			f.copyErr = fmt.Errorf("tgemu: file %s: %w", f.id, err)
			return
		}
		f.copyData = buf.Bytes()
	})
	return f.copyData, f.copyErr
}

// scale resizes img to w×h by taking the nearest pixel: enough for the small copies a viewer shows
// while the photo loads. The pixels of the kinds the image decoders make most (paletted, RGBA,
// NRGBA, as PNGs decode) are read directly; any other kind goes through its color model.
func scale(img image.Image, w, h int) image.Image {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	var pixel func(x, y int) color.RGBA
	switch src := img.(type) {
	case *image.Paletted:
		pal := make([]color.RGBA, 256)
		for i, c := range src.Palette {
			pal[i] = color.RGBAModel.Convert(c).(color.RGBA)
		}
		pixel = func(x, y int) color.RGBA { return pal[src.Pix[src.PixOffset(x, y)]] }
	case *image.RGBA:
		pixel = func(x, y int) color.RGBA {
			p := src.Pix[src.PixOffset(x, y):]
			return color.RGBA{p[0], p[1], p[2], p[3]}
		}
	case *image.NRGBA:
		// As color.NRGBA premultiplies, in 16 bits, and RGBAModel keeps the high byte.
		pre := func(v, a uint8) uint8 { return uint8(uint32(v) * 0x101 * uint32(a) / 0xff >> 8) }
		pixel = func(x, y int) color.RGBA {
			p := src.Pix[src.PixOffset(x, y):]
			return color.RGBA{pre(p[0], p[3]), pre(p[1], p[3]), pre(p[2], p[3]), p[3]}
		}
	default:
		pixel = func(x, y int) color.RGBA { return color.RGBAModel.Convert(img.At(x, y)).(color.RGBA) }
	}
	for y := range h {
		sy := b.Min.Y + y*b.Dy()/h
		row := out.Pix[y*out.Stride:]
		for x := range w {
			c := pixel(b.Min.X+x*b.Dx()/w, sy)
			row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = c.R, c.G, c.B, c.A
		}
	}
	return out
}

func prepareDocument(up upload) (*prepared, *apiError) {
	if len(up.data) == 0 {
		return nil, badRequest("file must be non-empty")
	}
	return &prepared{name: up.name, mime: http.DetectContentType(up.data), data: up.data, kind: "document"}, nil
}

// inputFile finds the file of a sending method, as the Bot API reads it: an upload in the
// request under the field's name; "attach://<name>" naming an upload; or the file_id of a file
// the bot already has. A new upload comes back prepared, to be stored once the request is known
// to succeed; a known file comes back as is. kind is "photo" or "document".
func (b *Bot) inputFile(p params, field, value, kind string) (*prepared, *file, *apiError) {
	up, ok := p.files[field]
	if name, attached := strings.CutPrefix(value, "attach://"); attached {
		up, ok = p.files[name]
	} else if value != "" {
		f := b.srv.file(value)
		if f == nil || f.botID != b.me.ID {
			return nil, nil, badRequest("wrong file identifier/HTTP URL specified")
		}
		if f.parent != "" {
			f = b.srv.file(f.parent)
		}
		if f.kind != kind {
			return nil, nil, badRequest("can't use file of type %s as %s", typeName(f.kind), typeName(kind))
		}
		return nil, f, nil
	}
	if !ok {
		return nil, nil, nil
	}
	if kind == "photo" {
		pr, e := preparePhoto(up)
		return pr, nil, e
	}
	pr, e := prepareDocument(up)
	return pr, nil, e
}

// typeName is a file kind as Telegram's errors name it.
func typeName(kind string) string { return strings.ToUpper(kind[:1]) + kind[1:] }

// storeLocked stores a prepared upload, with the smaller copies of a photo, and returns it. The
// caller holds b.mu.
func (b *Bot) storeLocked(pr *prepared) (*file, *apiError) {
	s := b.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	if pr.kind != "photo" {
		f, err := s.addFileLocked(b, pr.name, pr.mime, pr.data, "documents")
		return f, s.stateError(err)
	}
	// The photo's id comes last, so the copies are numbered first and name it as their parent.
	id := s.seq + len(pr.thumbs) + 1
	var sizes []string
	for _, t := range pr.thumbs {
		f, err := s.addPhotoLocked(b, "", "image/jpeg", nil, t.width, t.height, nil, photoID(s, id))
		if err != nil {
			return nil, s.stateError(err)
		}
		sizes = append(sizes, f.id)
	}
	f, err := s.addPhotoLocked(b, pr.name, pr.mime, pr.data, pr.width, pr.height, append(sizes, photoID(s, id)), "")
	return f, s.stateError(err)
}

// photoID is the file_id that the file numbered seq gets if it is a photo.
func photoID(s *Server, seq int) string { return fileID(s.instance(), "photos", seq) }

// addPhotoLocked stores a photo or one of its smaller copies.
func (s *Server) addPhotoLocked(b *Bot, name, mimeType string, data []byte, w, h int, sizes []string,
	parent string) (*file, error) {
	return s.addFileWithLocked(b, name, mimeType, data, "photos", func(f *file) {
		f.width, f.height, f.sizes, f.parent = w, h, sizes, parent
	})
}

// photoSizes is a photo as the Bot API shows it: every size, smallest first.
func (s *Server) photoSizes(id string) []tgbotapi.PhotoSize {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.files[id]
	if f == nil {
		return nil
	}
	sizes := f.sizes
	if len(sizes) == 0 {
		sizes = []string{f.id}
	}
	var out []tgbotapi.PhotoSize
	for _, id := range sizes {
		if sf := s.files[id]; sf != nil {
			out = append(out, tgbotapi.PhotoSize{FileID: sf.id, FileUniqueID: sf.uniqueID, Width: sf.width, Height: sf.height,
				FileSize: sf.size})
		}
	}
	return out
}

// isMedia reports whether a message carries a photo or a document, whose text is a caption.
func (m *Message) isMedia() bool { return m.Photo != "" || m.Document != "" }

// sendFile is sendPhoto and sendDocument: a new upload (multipart, possibly named by attach://) or
// a file_id, with a caption, its parse mode and an inline keyboard.
func (b *Bot) sendFile(p params, kind string) (any, *apiError) {
	if e := checkText(p.get("caption"), p.get("parse_mode"), maxCaptionLen, false); e != nil {
		return nil, e
	}
	kb, e := parseKeyboard(p.get("reply_markup"))
	if e != nil {
		return nil, e
	}
	pr, f, e := b.inputFile(p, kind, p.get(kind), kind)
	if e != nil {
		return nil, e
	}
	if pr == nil && f == nil {
		return nil, badRequest("there is no %s in the request", kind)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	id, c, e := b.targetLocked(p, true)
	if e != nil {
		return nil, e
	}
	replyTo, e := replyToLocked(c, p)
	if e != nil {
		return nil, e
	}
	if pr != nil {
		if f, e = b.storeLocked(pr); e != nil {
			return nil, e
		}
	}
	m := &Message{ID: c.nextID, ChatID: id, FromBot: true, Text: p.get("caption"), ParseMode: p.get("parse_mode"), Keyboard: kb,
		Date: b.srv.now(), ReplyTo: replyTo}
	setMedia(m, f)
	if e := b.saveAPILocked(record{Msg: m}); e != nil {
		return nil, e
	}
	c.nextID++
	c.messages = append(c.messages, m)
	b.noteSendLocked(c)
	b.publishLocked(c, Event{Type: "message", ChatID: id, Message: clone(m)})
	return b.toAPILocked(m), nil
}

// setMedia makes f the photo or document of m.
func setMedia(m *Message, f *file) {
	m.Photo, m.Document, m.FileName, m.PhotoWidth, m.PhotoHeight, m.PhotoURL = "", "", "", 0, 0, ""
	if f.kind == "photo" {
		m.Photo, m.PhotoWidth, m.PhotoHeight = f.id, f.width, f.height
	} else {
		m.Document, m.FileName = f.id, f.name
	}
}

// inputMedia is the InputMedia object of editMessageMedia.
type inputMedia struct {
	Type      *string `json:"type"`
	Media     string  `json:"media"`
	Caption   string  `json:"caption"`
	ParseMode string  `json:"parse_mode"`
}

// editMessageMedia replaces the photo or document of a message, with the caption the new media
// brings (none if it brings none) and the keyboard of reply_markup (none if absent), as Telegram
// does; a text message takes media too (its text gives way to the caption), as the Bot API
// allows. Only photos and documents are emulated.
func (b *Bot) editMessageMedia(p params) (any, *apiError) {
	kb, e := parseKeyboard(p.get("reply_markup"))
	if e != nil {
		return nil, e
	}
	raw := p.get("media")
	if raw == "" {
		return nil, badRequest("parameter \"media\" is required")
	}
	var in inputMedia
	if err := json.Unmarshal([]byte(raw), &in); err != nil {
		return nil, badRequest("can't parse input media JSON object")
	}
	switch {
	case in.Type == nil:
		return nil, badRequest("can't parse InputMedia: Can't find field \"type\"")
	case *in.Type == "video" || *in.Type == "animation" || *in.Type == "audio":
		return nil, badRequest("can't parse InputMedia: type \"%s\" is not emulated (photo and document are)", *in.Type)
	case *in.Type != "photo" && *in.Type != "document":
		return nil, badRequest("can't parse InputMedia: type \"%s\" is unsupported", *in.Type)
	}
	if e := checkText(in.Caption, in.ParseMode, maxCaptionLen, false); e != nil {
		return nil, e
	}
	pr, f, e := b.inputFile(p, "", in.Media, *in.Type)
	if e != nil {
		return nil, e
	}
	if pr == nil && f == nil {
		return nil, badRequest("can't parse InputMedia: media not found")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	id, c, m, e := b.editTargetLocked(p)
	if e != nil {
		return nil, e
	}
	if f != nil && (f.id == m.Photo || f.id == m.Document) && in.Caption == m.Text && in.ParseMode == m.ParseMode &&
		keyboardsEqual(kb, m.Keyboard) {
		return nil, notModified()
	}
	if pr != nil {
		if f, e = b.storeLocked(pr); e != nil {
			return nil, e
		}
	}
	next := *m
	setMedia(&next, f)
	next.Text, next.ParseMode, next.Keyboard, next.Edited = in.Caption, in.ParseMode, kb, true
	if e := b.saveAPILocked(record{Msg: &next}); e != nil {
		return nil, e
	}
	*m = next
	b.noteSendLocked(c)
	b.publishLocked(c, Event{Type: "edit", ChatID: id, Message: clone(m)})
	return b.toAPILocked(m), nil
}

// editMessageCaption replaces the caption of a photo or document, and its keyboard.
func (b *Bot) editMessageCaption(p params) (any, *apiError) {
	if e := checkText(p.get("caption"), p.get("parse_mode"), maxCaptionLen, false); e != nil {
		return nil, e
	}
	kb, e := parseKeyboard(p.get("reply_markup"))
	if e != nil {
		return nil, e
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	id, c, m, e := b.editTargetLocked(p)
	if e != nil {
		return nil, e
	}
	if !m.isMedia() {
		return nil, badRequest("there is no caption in the message to edit")
	}
	caption, mode := p.get("caption"), p.get("parse_mode")
	if caption == m.Text && mode == m.ParseMode && keyboardsEqual(kb, m.Keyboard) {
		return nil, notModified()
	}
	next := *m
	next.Text, next.ParseMode, next.Keyboard, next.Edited = caption, mode, kb, true
	if e := b.saveAPILocked(record{Msg: &next}); e != nil {
		return nil, e
	}
	*m = next
	b.noteSendLocked(c)
	b.publishLocked(c, Event{Type: "edit", ChatID: id, Message: clone(m)})
	return b.toAPILocked(m), nil
}

// editTargetLocked finds the message an editing method is about: chat_id and message_id (inline
// messages are inline.go's), a message of the bot.
func (b *Bot) editTargetLocked(p params) (int64, *chat, *Message, *apiError) {
	if p.get("chat_id") == "" && p.get("message_id") == "" {
		if p.get("inline_message_id") == "" {
			return 0, nil, nil, badRequest("message identifier is not specified")
		}
		return 0, nil, nil, badRequest("MESSAGE_ID_INVALID")
	}
	id, c, e := b.targetLocked(p, true)
	if e != nil {
		return 0, nil, nil, e
	}
	msgID, err := strconv.Atoi(p.get("message_id"))
	if err != nil || msgID <= 0 {
		return 0, nil, nil, badRequest("message identifier is not specified")
	}
	m := c.find(msgID)
	if m == nil {
		return 0, nil, nil, badRequest("message to edit not found")
	}
	if !m.FromBot {
		return 0, nil, nil, badRequest("message can't be edited")
	}
	return id, c, m, nil
}

// notModified is Telegram's answer to an edit that changes nothing.
func notModified() *apiError {
	return badRequest("message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")
}
