// Package meshtest builds topologies for tests, failing the test instead
// of returning an error. It is a package of its own, beside mesh, so that
// the tests of every package above mesh (endpoint, endpoint/traffic, ...)
// share one copy of these helpers, and so that mesh itself does not
// import testing.
package meshtest
