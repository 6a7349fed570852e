package qmm_test

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/questbot/questbot/qmm"
)

// corpusSize returns the total size of the corpus files.
func corpusSize(files []corpusFile) int {
	n := 0
	for _, f := range files {
		n += len(f.Data)
	}
	return n
}

// BenchmarkDecodeCorpus decodes the whole corpus per iteration. Besides MB/s and allocations
// it reports ms/corpus, the time for all files.
func BenchmarkDecodeCorpus(b *testing.B) {
	files := loadCorpus(b)
	b.SetBytes(int64(corpusSize(files)))
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			if _, err := qmm.DecodeBytes(f.Data); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/corpus")
}

// BenchmarkDecodeReader is BenchmarkDecodeCorpus through Decode and an io.Reader of unknown
// length, which adds reading the input into a growing buffer.
func BenchmarkDecodeReader(b *testing.B) {
	files := loadCorpus(b)
	b.SetBytes(int64(corpusSize(files)))
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			if _, err := qmm.Decode(io.MultiReader(bytes.NewReader(f.Data))); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/corpus")
}

// BenchmarkEncodeCorpus encodes the whole decoded corpus per iteration.
func BenchmarkEncodeCorpus(b *testing.B) {
	files := loadCorpus(b)
	quests := make([]*qmm.Quest, len(files))
	for i, f := range files {
		q, err := qmm.DecodeBytes(f.Data)
		if err != nil {
			b.Fatal(err)
		}
		quests[i] = q
	}
	b.SetBytes(int64(corpusSize(files)))
	b.ReportAllocs()
	var buf bytes.Buffer
	for b.Loop() {
		for _, q := range quests {
			buf.Reset()
			if err := qmm.Encode(&buf, q); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestCorpusMemory checks that the decoded corpus, kept in memory, costs at most twice the size
// of its files.
func TestCorpusMemory(t *testing.T) {
	files := loadCorpus(t)
	size := corpusSize(files)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	quests := make([]*qmm.Quest, len(files))
	for i, f := range files {
		q, err := qmm.DecodeBytes(f.Data)
		if err != nil {
			t.Fatal(err)
		}
		quests[i] = q
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	var locations, jumps, changes, conditions int
	for _, q := range quests {
		locations += len(q.Locations)
		jumps += len(q.Jumps)
		for _, l := range q.Locations {
			changes += len(l.Changes)
		}
		for _, j := range q.Jumps {
			changes += len(j.Changes)
			conditions += len(j.Conditions)
		}
	}
	t.Logf("%d locations, %d jumps, %d stored changes, %d stored conditions", locations, jumps, changes, conditions)
	live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	ratio := float64(live) / float64(size)
	t.Logf("%d files, %.1f MB; decoded and live: %.1f MB (%.2f× the files); allocated while decoding: %.1f MB in %d allocations",
		len(files), float64(size)/1e6, float64(live)/1e6, ratio,
		float64(after.TotalAlloc-before.TotalAlloc)/1e6, after.Mallocs-before.Mallocs)
	if ratio > 2 {
		t.Errorf("decoded corpus takes %.2f× its file size, want at most 2×", ratio)
	}
	runtime.KeepAlive(quests)
	runtime.KeepAlive(files) // else the input is freed during the measurement
}
