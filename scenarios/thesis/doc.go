// Package thesis reproduces the tables of the SCMP thesis (J. H. Poole,
// 2004): the transcribed tables, their runs (CG for Table 5.1, QR for
// Table 5.2) on the fitted thesis machine embedded here, the fit of the
// machine's costs on Table 5.1 and the machine file it writes. It is a
// package of its own because it is one study with its own data and fit,
// used by `nocsim thesis` and, as the "thesis" workload kind, by package
// study, which imports it (never the reverse).
package thesis
