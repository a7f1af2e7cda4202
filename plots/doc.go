// Package plots draws nocsim result tables as PNG/SVG/PDF charts with gonum/plot.
package plots
