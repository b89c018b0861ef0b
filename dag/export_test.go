package dag

// PeakWorkers returns the most worker goroutines w has had at once.
func PeakWorkers[T any](w *Walker[T]) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.peak
}
