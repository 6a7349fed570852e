package devtools_test

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/questbot/questbot/qmm"
)

// probeSource is a small quest for the tests: a task, a starting location naming the image
// map.png and greeting the player by name, a second location, and a won ending that adds 1000
// to the money parameter. %s is the greeting's last word, so that versions differ.
const probeSource = `{
	"header": 1111111127,
	"strings": {"ToStar": "", "ToPlanet": "", "Date": "", "Money": "", "FromPlanet": "", "FromStar": "", "Ranger": ""},
	"taskText": "Probe task.",
	"successText": "Probe done, <Ranger>.",
	"params": [
		{"min": 0, "max": 10, "type": 0, "critType": 0, "active": true, "showWhenZero": true, "name": "Fuel",
		 "showingInfo": [{"from": 0, "to": 10, "str": "Fuel: <>"}], "starting": "[3]"},
		{"min": 0, "max": 5000, "type": 0, "critType": 0, "active": true, "showWhenZero": true, "isMoney": true,
		 "name": "Money", "showingInfo": [{"from": 0, "to": 5000, "str": "Money: <>"}], "starting": ""}
	],
	"locations": [
		{"id": 1, "locX": 1, "locY": 1, "isStarting": true,
		 "texts": [{"text": "Hello, <Ranger>. %s", "media": {"img": "map.png"}}]},
		{"id": 2, "locX": 2, "locY": 1, "texts": [{"text": "Halfway."}]},
		{"id": 3, "locX": 3, "locY": 1, "isSuccess": true, "paramsChanges": [{"p": 1, "change": 1000}],
		 "texts": [{"text": "Arrived."}]}
	],
	"jumps": [
		{"id": 1, "fromLocationId": 1, "toLocationId": 2, "priority": 1, "showingOrder": 1, "text": "Go on", "description": ""},
		{"id": 2, "fromLocationId": 2, "toLocationId": 3, "priority": 1, "showingOrder": 1, "text": "Arrive", "description": ""}
	]
}`

// probe returns the probe quest as a .qmm file, its greeting ending in word.
func probe(t *testing.T, word string) []byte {
	t.Helper()
	q, err := qmm.ReadJSON([]byte(fmt.Sprintf(probeSource, word)))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := qmm.Encode(&b, q); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pngOf returns a w×h PNG of one colour.
func pngOf(t *testing.T, w, h int, c color.Color) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// jpegOf returns a small JPEG.
func jpegOf(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewRGBA(image.Rect(0, 0, 4, 4)), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// hugePNG returns a valid PNG whose header claims w×h pixels (with a correct checksum), while
// its data holds one pixel.
func hugePNG(t *testing.T, w, h uint32) []byte {
	t.Helper()
	data := pngOf(t, 1, 1, color.White)
	// Signature (8), then the IHDR chunk: length (4), "IHDR" (4), width, height, ..., CRC.
	if string(data[12:16]) != "IHDR" {
		t.Fatal("unexpected PNG layout")
	}
	binary.BigEndian.PutUint32(data[16:], w)
	binary.BigEndian.PutUint32(data[20:], h)
	binary.BigEndian.PutUint32(data[29:], crc32.ChecksumIEEE(data[12:29]))
	return data
}

// deepPNG returns a valid w×h PNG of 16 bits per channel with alpha, all zero: a few hundred
// kilobytes that decode to 8 bytes a pixel. Its image data is never compressed whole (which would
// take long under the race detector): the deflate blocks of one zero row, written after another
// zero row so that they refer to zeros only, are repeated for the other rows.
func deepPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	row := make([]byte, 1+8*w) // the filter byte, then the pixels
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(row)
	zw.Flush()
	first := z.Len()
	zw.Write(row)
	zw.Flush()
	again := bytes.Clone(z.Bytes()[first:])
	z.Truncate(first)
	for range h - 1 {
		z.Write(again)
	}
	z.Write([]byte{0x03, 0x00}) // an empty final block
	// The Adler-32 of n zero bytes: its sum stays 1 and adds up to n.
	n := uint32(len(row)) * uint32(h)
	binary.Write(&z, binary.BigEndian, (n%65521)<<16|1)

	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(kind string, data []byte) {
		binary.Write(&b, binary.BigEndian, uint32(len(data)))
		body := append([]byte(kind), data...)
		b.Write(body)
		binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(body))
	}
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, 16, 6, 0, 0, 0) // 16 bits, RGBA, deflate, no filter method, not interlaced
	chunk("IHDR", ihdr)
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	return b.Bytes()
}

// randomBytes returns n bytes of a fixed pseudo-random sequence that does not start like a
// quest file.
func randomBytes(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	b[0], b[1], b[2], b[3] = 'J', 'U', 'N', 'K'
	return b
}

// hugeCounts returns a .qmm header (QMM_6) that claims 2^31-1 parameters.
func hugeCounts() []byte {
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, 0x423A35D6)
	b = append(b, 0, 0, 0, 0, 0)
	for range 7 {
		b = binary.LittleEndian.AppendUint32(b, 0)
	}
	b = binary.LittleEndian.AppendUint32(b, 0x7FFFFFFF)
	return append(b, make([]byte, 64)...)
}

// number reads the quest number out of an upload's answer ("... number 12, version 1 ...").
func number(t *testing.T, text string) int64 {
	t.Helper()
	_, rest, ok := strings.Cut(text, "number ")
	var n int64
	if ok {
		_, err := fmt.Sscanf(rest, "%d", &n)
		ok = err == nil
	}
	if !ok {
		t.Fatalf("no quest number in %q", text)
	}
	return n
}

// sha is the hex SHA-256 of data, the name an upload is stored under.
func sha(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}
