package web

// PictureEncodes counts the pictures the server has read and encoded: the misses of its
// pictures' cache.
func (s *Server) PictureEncodes() int64 { return s.pics.encodes.Load() }
