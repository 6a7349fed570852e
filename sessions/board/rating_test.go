package board

import (
	"math"
	"testing"
)

func TestExpectedScore(t *testing.T) {
	tests := []struct {
		a, b int
		want float64
	}{
		{1500, 1500, 0.5},
		{1900, 1500, 10.0 / 11},
		{1500, 1900, 1.0 / 11},
		{2000, 1200, 100.0 / 101},
	}
	for _, tt := range tests {
		if got := expectedScore(tt.a, tt.b); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("expectedScore(%d, %d) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestRate(t *testing.T) {
	tests := []struct {
		a, b         int
		score        float64
		wantA, wantB int
	}{
		{1500, 1500, 1, 1516, 1484},
		{1500, 1500, 0.5, 1500, 1500},
		{1500, 1500, 0, 1484, 1516},
		{1700, 1500, 1, 1708, 1492},   // 32·(1−0.7597) = 7.69
		{1700, 1500, 0, 1676, 1524},   // 32·(0−0.7597) = −24.31
		{1700, 1500, 0.5, 1692, 1508}, // 32·(0.5−0.7597) = −8.31
		{1500, 1900, 1, 1529, 1871},   // 32·(1−1/11) = 29.09
	}
	for _, tt := range tests {
		a, b := Rate(tt.a, tt.b, tt.score)
		if a != tt.wantA || b != tt.wantB {
			t.Errorf("Rate(%d, %d, %v) = %d, %d, want %d, %d", tt.a, tt.b, tt.score, a, b, tt.wantA, tt.wantB)
		}
		if a+b != tt.a+tt.b {
			t.Errorf("Rate(%d, %d, %v) makes points", tt.a, tt.b, tt.score)
		}
		if d := eloDelta(tt.a, tt.b, tt.score); d > EloK || d < -EloK {
			t.Errorf("delta %d beyond K", d)
		}
	}
}
