package qmm

import (
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
)

// Decode reads a whole .qm or .qmm file from r and returns its content.
//
// It accepts exactly the files the reference reader accepts, with three exceptions that the
// reference reader turns into a broken model instead of rejecting: negative counts, negative
// string lengths, and parameter numbers outside 1..paramsCount in a .qmm change or condition
// list. Like the reference reader it requires the data to end right after the last jump.
//
// Errors: a [*FormatError] for malformed input (wrapping io.ErrUnexpectedEOF when the data ends
// too early and [ErrUnknownMagic] when the magic is unknown); any other error comes from r.
// Decode reads r to its end before parsing; callers that accept uploads should limit r.
func Decode(r io.Reader) (*Quest, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, fmt.Errorf("qmm: read: %w", err)
	}
	return DecodeBytes(data)
}

// DecodeBytes is [Decode] for a file already in memory. The returned Quest does not refer to
// data, which the caller may reuse.
func DecodeBytes(data []byte) (*Quest, error) {
	d := decoder{data: data, index: -1, short: noShort}
	q := d.quest()
	if d.failed() {
		return nil, d.err
	}
	return q, nil
}

// readAll reads r to its end, sizing the buffer from r's length when r can tell it.
func readAll(r io.Reader) ([]byte, error) {
	const maxHint = 1 << 30
	size := int64(512)
	switch v := r.(type) {
	case interface{ Len() int }: // bytes.Reader, bytes.Buffer, strings.Reader
		size = int64(v.Len()) + 1
	case interface{ Stat() (fs.FileInfo, error) }: // os.File
		if fi, err := v.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size() + 1
		}
	}
	size = min(max(size, 512), maxHint)
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			// Double the buffer (append would grow large ones by a quarter only), so that
			// reading costs at most twice the input in copies.
			buf = slices.Grow(buf, max(cap(buf), 16<<10))
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Minimum sizes in bytes of the records whose counts the file gives, used to reject counts
// that cannot fit in the rest of the data before anything is allocated for them.
const (
	minString      = 4                 // an absent string
	minRange       = 8 + minString     // a display range
	minParamQM     = 25 + 3*minString  // a .qm parameter
	minParamQMM    = 20 + 6*minString  // a .qmm parameter
	minLocationQMM = 30 + minString    // a .qmm location without changes or texts
	minJumpQMM     = 41 + 6*minString  // a .qmm jump without changes or conditions
	minChangeQMM   = 10 + 5*minString  // a .qmm change record
	minCondQMM     = 22                // a .qmm condition record
	minTextQMM     = 4 * minString     // a .qmm location text with its media
	minLocationQM  = 26 + 13*minString // a .qm location, plus minChangeQM per parameter
	minChangeQM    = 34 + 2*minString  // a .qm location's change record
	minJumpQM      = 34 + 3*minString  // a .qm jump, plus minCondQM per parameter
	minCondQM      = 34 + 2*minString  // a .qm jump's condition and change record
	qmLocationText = 10                // the number of texts of a .qm location
)

// decoder parses a quest from a byte slice.
//
// Errors are sticky. The primitive reads (u8, i32, f64, skip) are kept small enough to be
// inlined: when the data runs out they only note the offset in short, move pos to the end and
// return zero, so every later read fails too. Callers check failed, which turns that note into
// a *FormatError naming the record being read, once per record rather than once per field.
// Counts and lengths are checked before use, so reading on after a failure costs little and
// allocates nothing.
type decoder struct {
	data  []byte
	pos   int
	short int // offset of the first read past the end, or noShort
	err   error
	part  string // what is being read, for error messages
	index int    // index of the parameter, location or jump being read, or -1
	magic Magic
	strs  stringArena

	params  []Param       // the quest's parameters, for default conditions
	changes []ParamChange // scratch for a .qm record's non-default changes
	conds   []Condition   // scratch for a jump's conditions

	// condLists holds the condition lists decoded so far, by their content, so that jumps
	// with equal lists share one; see shareConditions.
	condLists map[string][]Condition
	key       []byte // scratch for the keys of .qm condition lists
}

const noShort = math.MaxInt

// where describes the record being read.
func (d *decoder) where() string {
	if d.index < 0 {
		return d.part
	}
	return fmt.Sprintf("%s %d", d.part, d.index)
}

// failed reports whether decoding has failed, turning a read past the end into an error.
func (d *decoder) failed() bool {
	if d.err == nil && d.short != noShort {
		d.err = &FormatError{
			Offset: int64(d.short),
			Msg:    d.where() + ": unexpected end of data",
			Err:    io.ErrUnexpectedEOF,
		}
	}
	return d.err != nil
}

// fail records a format error at offset off, unless decoding has already failed: after a read
// past the end, values are zeros and may look invalid.
func (d *decoder) fail(off int, cause error, format string, args ...any) {
	if !d.failed() {
		msg := d.where() + ": " + fmt.Sprintf(format, args...)
		if cause == io.ErrUnexpectedEOF {
			msg = d.where() + ": unexpected end of data: " + fmt.Sprintf(format, args...)
		}
		d.err = &FormatError{Offset: int64(off), Msg: msg, Err: cause}
	}
	d.pos = len(d.data)
}

func (d *decoder) u8() uint8 {
	p := d.pos
	if p >= len(d.data) {
		d.short = min(d.short, p)
		return 0
	}
	d.pos = p + 1
	return d.data[p]
}

func (d *decoder) flag() bool { return d.u8() != 0 }

func (d *decoder) i32() int32 {
	p := d.pos
	if len(d.data)-p < 4 {
		d.short = min(d.short, p)
		d.pos = len(d.data)
		return 0
	}
	d.pos = p + 4
	return int32(binary.LittleEndian.Uint32(d.data[p:]))
}

func (d *decoder) f64() float64 {
	p := d.pos
	if len(d.data)-p < 8 {
		d.short = min(d.short, p)
		d.pos = len(d.data)
		return 0
	}
	d.pos = p + 8
	return math.Float64frombits(binary.LittleEndian.Uint64(d.data[p:]))
}

func (d *decoder) skip(n int) {
	p := d.pos
	if len(d.data)-p < n {
		d.short = min(d.short, p)
		d.pos = len(d.data)
		return
	}
	d.pos = p + n
}

// str reads a string, absent ones as "".
func (d *decoder) str() string {
	if d.i32() == 0 {
		return ""
	}
	return d.strBody()
}

// optStr reads a string that may be absent.
func (d *decoder) optStr() OptString {
	if d.i32() == 0 {
		return OptString{}
	}
	return OptString{Value: d.strBody(), Valid: true}
}

// media reads the optional image, sound and track names of a .qmm record.
func (d *decoder) media() Media {
	return Media{Image: d.optStr(), Sound: d.optStr(), Track: d.optStr()}
}

// strBody reads the length and code units of a present string.
func (d *decoder) strBody() string {
	start := d.pos
	n := d.i32()
	if n < 0 {
		d.fail(start, nil, "negative string length %d", n)
		return ""
	}
	if left := len(d.data) - d.pos; int64(n)*2 > int64(left) {
		d.fail(start, io.ErrUnexpectedEOF, "string of %d code units needs %d bytes, %d left",
			n, int64(n)*2, left)
		return ""
	}
	b := d.data[d.pos : d.pos+2*int(n)]
	d.pos += 2 * int(n)
	return d.strs.decode(b)
}

// count reads a count of records of at least minSize bytes each and checks that they can fit
// in the rest of the data.
func (d *decoder) count(what string, minSize int) int {
	start := d.pos
	n := d.i32()
	if d.failed() {
		return 0
	}
	if n < 0 {
		d.fail(start, nil, "negative %s count %d", what, n)
		return 0
	}
	if left := len(d.data) - d.pos; int64(n)*int64(minSize) > int64(left) {
		d.fail(start, io.ErrUnexpectedEOF, "%d %s need at least %d bytes, %d left",
			n, what, int64(n)*int64(minSize), left)
		return 0
	}
	return int(n)
}

// fits checks that n records of minSize bytes each can fit in the rest of the data.
func (d *decoder) fits(what string, n, minSize int) bool {
	if left := len(d.data) - d.pos; !d.failed() && int64(n)*int64(minSize) > int64(left) {
		d.fail(d.pos, io.ErrUnexpectedEOF, "%d %s need at least %d bytes, %d left",
			n, what, int64(n)*int64(minSize), left)
	}
	return !d.failed()
}

// noValues reads an empty value list of a condition, the common case, and returns its flag;
// ok is false, and nothing is read, when the list is not empty (or the data ends).
func (d *decoder) noValues() (flag, ok bool) {
	p := d.pos
	if len(d.data)-p < 5 || binary.LittleEndian.Uint32(d.data[p:]) != 0 {
		return false, false
	}
	d.pos = p + 5
	return d.data[p+4] != 0, true
}

// values reads a condition's value list: a count, the list's flag, then the values. An empty
// list is nil.
func (d *decoder) values(what string) ([]int32, bool) {
	n := d.count(what, 4)
	flag := d.flag()
	if n == 0 {
		return nil, flag
	}
	// The count was checked against the bytes left, so this allocation is bounded by the input.
	out := make([]int32, n)
	for i := range out {
		out[i] = d.i32()
	}
	return out, flag
}

func (d *decoder) quest() *Quest {
	q := new(Quest)
	d.part = "header"
	q.Magic = Magic(uint32(d.i32()))
	if d.failed() {
		return nil
	}
	if !q.Magic.known() {
		d.fail(0, ErrUnknownMagic, "unknown magic 0x%08X: not a quest file", uint32(q.Magic))
		return nil
	}
	d.magic = q.Magic
	qm := q.Magic.IsQM()
	var nParams int
	if qm {
		nParams = d.headerQM(q)
	} else {
		nParams = d.headerQMM(q)
	}
	d.part = "parameter"
	if nParams > 0 && !d.failed() {
		q.Params = make([]Param, nParams)
		for i := range q.Params {
			d.index = i
			if qm {
				d.paramQM(&q.Params[i])
			} else {
				d.paramQMM(&q.Params[i])
			}
			if d.failed() {
				return nil
			}
		}
	}
	d.params = q.Params
	d.index = -1

	nLocations, nJumps := d.stringsBlock(q)

	d.part = "location"
	if qm {
		d.fits("locations", nLocations, minLocationQM+minChangeQM*len(q.Params))
	}
	readLocation := d.locationQMM
	if qm {
		readLocation = d.locationQM
	}
	var ok bool
	if q.Locations, ok = records(d, nLocations, readLocation); !ok {
		return nil
	}

	d.part = "jump"
	if qm {
		d.fits("jumps", nJumps, minJumpQM+minCondQM*len(q.Params))
	} else {
		d.fits("jumps", nJumps, minJumpQMM)
	}
	readJump := d.jumpQMM
	if qm {
		readJump = d.jumpQM
	}
	if q.Jumps, ok = records(d, nJumps, readJump); !ok {
		return nil
	}
	if !d.failed() && d.pos != len(d.data) {
		d.part = "end"
		d.fail(d.pos, nil, "%d bytes after the last jump", len(d.data)-d.pos)
	}
	return q
}

// records reads n records of the current part with read, numbering them for the error
// messages. It reads nothing when n is 0 or the decoding has already failed; ok is false when
// one of the records fails.
func records[T any](d *decoder, n int, read func(*T)) (out []T, ok bool) {
	if n <= 0 || d.failed() {
		return nil, true
	}
	out = make([]T, n)
	for i := range out {
		d.index = i
		read(&out[i])
		if d.failed() {
			return nil, false
		}
	}
	d.index = -1
	return out, true
}

// headerQM reads the rest of a .qm header and returns the number of parameters.
func (d *decoder) headerQM(q *Quest) int {
	d.skip(4)
	q.GivingRace = d.u8()
	q.WhenDone = d.u8()
	d.skip(4)
	q.PlanetRace = d.u8()
	d.skip(4)
	q.PlayerCareer = d.u8()
	d.skip(4)
	q.PlayerRace = d.u8()
	q.ReputationChange = d.i32()
	q.ScreenSizeX = d.i32()
	q.ScreenSizeY = d.i32()
	q.WidthSize = d.i32()
	q.HeightSize = d.i32()
	d.skip(4)
	q.DefaultJumpCountLimit = d.i32()
	q.Hardness = d.i32()
	n := q.Magic.paramsCount()
	d.part = "parameter"
	d.fits("parameters", n, minParamQM)
	return n
}

// headerQMM reads the rest of a .qmm header and returns the number of parameters.
func (d *decoder) headerQMM(q *Quest) int {
	if q.Magic.HasVersion() {
		q.MajorVersion = d.i32()
		q.MinorVersion = d.i32()
		q.ChangeLog = d.optStr()
	}
	q.GivingRace = d.u8()
	q.WhenDone = d.u8()
	q.PlanetRace = d.u8()
	q.PlayerCareer = d.u8()
	q.PlayerRace = d.u8()
	q.ReputationChange = d.i32()
	q.ScreenSizeX = d.i32()
	q.ScreenSizeY = d.i32()
	q.WidthSize = d.i32()
	q.HeightSize = d.i32()
	q.DefaultJumpCountLimit = d.i32()
	q.Hardness = d.i32()
	return d.count("parameters", minParamQMM)
}

func (d *decoder) paramQM(p *Param) {
	p.Min = d.i32()
	p.Max = d.i32()
	d.skip(4)
	p.Type = ParamType(d.u8())
	d.skip(4)
	p.ShowWhenZero = d.flag()
	p.CritType = CritType(d.u8())
	p.Active = d.flag()
	nRanges := d.count("display ranges", minRange)
	p.IsMoney = d.flag()
	p.Name = d.str()
	p.Ranges = d.ranges(nRanges)
	p.CritText = d.str()
	p.Starting = d.str()
}

func (d *decoder) paramQMM(p *Param) {
	p.Min = d.i32()
	p.Max = d.i32()
	p.Type = ParamType(d.u8())
	// Three bytes the editor writes as zero; the reference reader only warns otherwise.
	d.skip(3)
	p.ShowWhenZero = d.flag()
	p.CritType = CritType(d.u8())
	p.Active = d.flag()
	nRanges := d.count("display ranges", minRange)
	p.IsMoney = d.flag()
	p.Name = d.str()
	p.Ranges = d.ranges(nRanges)
	p.CritText = d.str()
	p.Media = d.media()
	p.Starting = d.str()
}

func (d *decoder) ranges(n int) []ParamRange {
	if n == 0 {
		return nil
	}
	out := make([]ParamRange, n)
	for i := range out {
		out[i].From = d.i32()
		out[i].To = d.i32()
		out[i].Text = d.str()
	}
	return out
}

// stringsBlock reads the strings block and returns the location and jump counts.
func (d *decoder) stringsBlock(q *Quest) (nLocations, nJumps int) {
	d.part = "strings"
	s := &q.Strings
	qm := d.magic.IsQM()
	s.ToStar = d.str()
	if qm {
		s.Parsec = d.optStr()
		s.Artefact = d.optStr()
	}
	s.ToPlanet = d.str()
	s.Date = d.str()
	s.Money = d.str()
	s.FromPlanet = d.str()
	s.FromStar = d.str()
	s.Ranger = d.str()
	if qm {
		nLocations = d.count("locations", minLocationQM)
		nJumps = d.count("jumps", minJumpQM)
	} else {
		nLocations = d.count("locations", minLocationQMM)
		nJumps = d.count("jumps", minJumpQMM)
	}
	q.SuccessText = d.str()
	q.TaskText = d.str()
	if qm {
		d.str() // unknown, discarded by the reference reader
	}
	return nLocations, nJumps
}
