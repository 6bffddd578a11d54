package ginrefbot

import "fmt"

const ranks = "A23456789TJQK"
const suits = "CDHS"

// CardIndex is the card index (suit*13 + rank, suits C D H S, ranks A..K) of a wire card such
// as "TD"; it returns an error for anything else.
func CardIndex(text string) (int, error) {
	if len(text) == 2 {
		for r := 0; r < 13; r++ {
			for s := 0; s < 4; s++ {
				if text[0] == ranks[r] && text[1] == suits[s] {
					return s*13 + r, nil
				}
			}
		}
	}
	return 0, fmt.Errorf("not a wire card: %q", text)
}

func rankValue(rank int) int {
	if rank >= 9 {
		return 10
	}
	return rank + 1
}

// CardValue is the deadwood value of a card index: A = 1, 2..10 = pips, J Q K = 10.
func CardValue(card int) int { return rankValue(card % 13) }

// runDw[m]: least deadwood of one suit's cards (13-bit mask m) using runs only. The lowest card
// of m is either deadwood or the low end of a run of 3 or more.
var runDw = func() [8192]int {
	var best [8192]int
	for m := 1; m < 8192; m++ {
		low := m & -m
		r := 0
		for low>>r != 1 {
			r++
		}
		val := rankValue(r) + best[m^low]
		run := low
		for k := r + 1; k < 13 && (m>>k)&1 == 1; k++ {
			run |= 1 << k
			if k-r+1 >= 3 && best[m^run] < val {
				val = best[m^run]
			}
		}
		best[m] = val
	}
	return best
}()

// MinDeadwood is the exact minimum deadwood of a collection of distinct card indices. Sets are
// the only melds that span suits: every arrangement is a choice of sets among the ranks holding
// 3 or 4 cards plus runs inside each suit, so it tries every such choice.
func MinDeadwood(cards []int) int {
	var s [4]int
	for _, c := range cards {
		s[c/13] |= 1 << (c % 13)
	}
	var setRanks, patterns []int
	for r := 0; r < 13; r++ {
		pattern, n := 0, 0
		for i := 0; i < 4; i++ {
			if (s[i]>>r)&1 == 1 {
				pattern |= 1 << i
				n++
			}
		}
		if n >= 3 {
			setRanks = append(setRanks, r)
			patterns = append(patterns, pattern)
		}
	}
	best := 1 << 30
	var rec func(i int)
	rec = func(i int) {
		if i == len(setRanks) {
			if v := runDw[s[0]] + runDw[s[1]] + runDw[s[2]] + runDw[s[3]]; v < best {
				best = v
			}
			return
		}
		options := []int{0, patterns[i]}
		if patterns[i] == 15 {
			options = []int{0, 15, 14, 13, 11, 7}
		}
		for _, p := range options {
			for j := 0; j < 4; j++ {
				if (p>>j)&1 == 1 {
					s[j] ^= 1 << setRanks[i]
				}
			}
			rec(i + 1)
			for j := 0; j < 4; j++ {
				if (p>>j)&1 == 1 {
					s[j] ^= 1 << setRanks[i]
				}
			}
		}
	}
	rec(0)
	return best
}

// SplitMix64 returns the next output of the generator and advances its state.
func SplitMix64(state *uint64) uint64 {
	*state += 0x9e3779b97f4a7c15
	z := *state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
