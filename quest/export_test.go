package quest

// Replay is replay, for the tests of package quest_test.
func (q *Quest) Replay(seed string, actions []int) (State, error) { return q.replay(seed, actions) }
