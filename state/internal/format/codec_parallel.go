package format

import (
	"context"
	"runtime"
	"strings"
	"sync"

	"github.com/groundwork-iac/groundwork/resource"
)

// This file reads the resources of a large snapshot on several cores.
// Writers put each record on a line of its own, after a comma: the array
// can be cut at ",\n{" into chunks that are read at once, each by a
// decoder of its own. Such a cut could also fall inside a record of a file
// laid out differently, so each chunk must end exactly where the next one
// begins, between two records of the array; if one does not, or any chunk
// fails, the array is read again from its start by one decoder, which
// reports any error as it always has. The result is the same either way.

// parallelChunk is the least input worth a chunk of its own (about 1,000
// W1 records).
const parallelChunk = 512 << 10

// recordSeparator is what writers put between two resource records.
const recordSeparator = ",\n{"

// chunkResult is what one chunk's decoder read.
type chunkResult struct {
	states []*resource.State
	end    int  // where its decoder stopped
	ok     bool // it read whole records, up to exactly its end
	scope  *decodeScope
}

// statesParallel reads the array at d.pos in chunks, concurrently. It
// reports false, with d where it was, if the chunks do not line up or any
// fails: the caller then reads the array serially.
func (d *decoder) statesParallel(ctx context.Context) ([]*resource.State, bool) {
	d.space()
	start := d.pos
	if start >= len(d.data) || d.data[start] != '[' {
		return nil, false
	}
	cuts := d.cuts(start, min(runtime.GOMAXPROCS(0), (len(d.data)-start)/parallelChunk))
	if len(cuts) == 0 {
		return nil, false
	}
	results := make([]chunkResult, len(cuts)+1)
	var wg sync.WaitGroup
	for k := range cuts {
		end := -1 // the last chunk ends with the array
		if k+1 < len(cuts) {
			end = cuts[k+1]
		}
		wg.Go(func() {
			c := &decoder{data: d.data, pos: cuts[k] + 1, mgr: d.mgr, share: true, scope: &decodeScope{}}
			results[k+1] = c.chunk(ctx, end)
		})
	}
	d.pos = start + 1
	if d.peek() != ']' {
		c := &decoder{data: d.data, pos: d.pos, mgr: d.mgr, share: true, scope: d.scope}
		results[0] = c.chunk(ctx, cuts[0])
	}
	wg.Wait()
	n := 0
	for _, r := range results {
		if !r.ok {
			d.pos = start
			return nil, false
		}
		n += len(r.states)
	}
	out := make([]*resource.State, 0, n)
	for _, r := range results {
		out = append(out, r.states...)
		d.scope.unknowns = d.scope.unknowns || r.scope.unknowns
	}
	d.pos = results[len(results)-1].end
	return out, true
}

// cuts returns up to n-1 positions after start, about evenly spread, of the
// comma of a record separator.
func (d *decoder) cuts(start, n int) []int {
	var cuts []int
	span := (len(d.data) - start) / max(n, 1)
	from := start + 1
	for k := 1; k < n; k++ {
		at := max(start+k*span, from)
		if at >= len(d.data) {
			break
		}
		i := strings.Index(d.data[at:], recordSeparator)
		if i < 0 {
			break
		}
		cuts = append(cuts, at+i)
		from = at + i + 1
	}
	return cuts
}

// chunk reads array elements from d.pos, each a resource record followed by
// a comma, until the comma at end; with end < 0, until the array's closing
// bracket.
func (d *decoder) chunk(ctx context.Context, end int) chunkResult {
	r := chunkResult{scope: d.scope}
	for {
		if ctx.Err() != nil {
			return r
		}
		s, err := d.state(ctx)
		if err != nil {
			return r
		}
		r.states = append(r.states, s)
		d.space()
		switch {
		case end >= 0 && d.pos == end:
			r.end, r.ok = d.pos, true
			return r
		case end >= 0 && d.pos > end:
			return r
		case d.consume(','):
		case end < 0 && d.consume(']'):
			r.end, r.ok = d.pos, true
			return r
		default:
			return r
		}
	}
}
