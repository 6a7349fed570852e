package devtools

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
)

// # The memory an image takes to decode
//
// A compressed image says little about what decoding it costs: a PNG of 130 KB can hold 4096 ×
// 4096 pixels of 16-bit colour, 128 MB once decoded. So an upload is judged by the memory its
// decoding needs, estimated from its header before any pixel is decoded (decodeCost), and refused
// above Config.MaxImageMemory; and images are decoded one at a time (Tools.decode), so that
// uploads arriving together never add their peaks.

// defaultMaxImageMemory is the most memory an uploaded image may take to decode: a picture of 16
// megapixels in 8-bit colour with alpha.
const defaultMaxImageMemory = 64 << 20

// decodeCost estimates the bytes the standard decoders allocate for an image whose header gave
// cfg: its pixels at the size of the colour model the decoder produces, twice that for an
// interlaced PNG (each pass is decoded on its own, then copied), and for a progressive JPEG the
// coefficients it keeps (an int32 for each sample of each component).
func decodeCost(data []byte, cfg image.Config, format string) int64 {
	pixels := int64(cfg.Width) * int64(cfg.Height)
	per := bytesPerPixel(cfg.ColorModel)
	switch format {
	case "png":
		if pngInterlaced(data) {
			per *= 2
		}
	case "jpeg":
		if jpegProgressive(data) {
			per += 4 * components(cfg.ColorModel)
		}
	}
	return pixels * per
}

// bytesPerPixel is the size of a pixel of the image types the decoders return for each colour
// model; an unknown model is charged the largest.
func bytesPerPixel(m color.Model) int64 {
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	switch m {
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.Gray16Model, color.Alpha16Model:
		return 2
	case color.YCbCrModel:
		return 3 // 4:4:4; subsampled images take less
	case color.RGBAModel, color.NRGBAModel, color.CMYKModel:
		return 4
	}
	return 8
}

// components is how many components a JPEG of this colour model has.
func components(m color.Model) int64 {
	switch m {
	case color.GrayModel:
		return 1
	case color.CMYKModel:
		return 4
	}
	return 3
}

// pngInterlaced reports whether a PNG's header asks for Adam7 interlacing: the last byte of the
// IHDR chunk, which the signature and the chunk's length and type precede.
func pngInterlaced(data []byte) bool {
	const at = 8 + 4 + 4 + 12
	return len(data) > at && bytes.Equal(data[12:16], []byte("IHDR")) && data[at] != 0
}

// jpegProgressive reports whether a JPEG's frame is progressive (or lossless), which its
// decoder keeps as coefficients besides the pixels: the segments are walked to the first start
// of frame.
func jpegProgressive(data []byte) bool {
	i := 2 // after SOI
	for i+4 <= len(data) {
		if data[i] != 0xFF {
			return false
		}
		marker := data[i+1]
		if marker == 0xFF { // fill byte
			i++
			continue
		}
		switch {
		case marker == 0xC0 || marker == 0xC1:
			return false
		case marker >= 0xC2 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
			return true
		case marker == 0xDA: // start of scan before any frame: not a JPEG the decoder takes
			return false
		}
		i += 2 + int(binary.BigEndian.Uint16(data[i+2:]))
	}
	return false
}
