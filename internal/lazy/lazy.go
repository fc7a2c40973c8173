// Package lazy holds values made on first use whose zero value is ready:
// a package-level lazy.Value costs nothing at package init, where
// sync.OnceValue allocates its closure before main (every hook pays every
// linked package's init, docs/speed.md).
package lazy

import "sync"

// Value is a T made by the first Get's function, then kept.
type Value[T any] struct {
	once sync.Once
	v    T
}

// Get returns the value, made by make on the first call.
func (l *Value[T]) Get(make func() T) T {
	l.once.Do(func() { l.v = make() })
	return l.v
}
