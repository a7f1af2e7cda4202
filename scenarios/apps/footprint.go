package apps

import "math"

// Footprint is the heap the busiest tile holds for one run of app with
// method (its variant) and version ("mpi" or "native") at P processors
// and size n: the kernel's own buffers in bytes, as its Run function
// allocates them (whole words, at least one each), and the largest
// message it sends, for the caller to add the MPI library's scratch.
// The estimates err on the side of too much; scenarios' limits tests
// run the largest size they accept.
func Footprint(app, method, version string, P, n int) (need, msg int) {
	native := version == "native"
	f8 := func(k int) int { return r4(8 * k) }
	most := ownRows(n, P, 0)
	switch app {
	case "cg":
		need = 2*f8(n) + 4*f8(most)
		if native {
			need += r4(4 * (4*P + 3))
		} else {
			need += f8(most) + 2*f8(1)
		}
		msg = 8 * max(n, most)
		if native && method == "thesis" {
			need += r4(4 * (cgThesisSyncWords(P) - (4*P + 3)))
		}
	case "globalsum":
		if native {
			steps := 0
			for k := 1; k < P; k <<= 1 {
				steps++
			}
			slots := steps
			if method == "serial" {
				slots = P // node 0 has one per sender
			}
			need = (1 + slots) * f8(n)
		} else {
			need = 2 * f8(n)
			if method == "onesided" {
				need += f8(P * n) // rank 0's slots
			}
			need += r4(4 * 16 * P) // a window's flag block and exchange
		}
		msg = 8 * n
	case "halo":
		need, msg = 2*f8((haloRows+2)*n)+r4(4*16*P), 8*n
	case "matmul":
		if method == "2d" {
			q := max(int(math.Sqrt(float64(P))), 1)
			bs := n / q
			k := 4
			if native {
				k = 7
			}
			need, msg = k*f8(bs*bs), 8*bs*bs
		} else {
			nb := n / P
			need, msg = 4*f8(nb*n), 8*nb*n
		}
	case "qr":
		if method == "thesis" {
			X, Y := QRThesisGrid(P)
			maxR, maxC := ownRows(n, Y, 0), ownRows(n, X, 0)
			need = f8(maxR * maxC)
			if native {
				need += r4(4*qrThesisNativeWords(P, Y)) + f8(maxR+1) + f8(Y*max(maxC, 1))
			} else {
				need += f8(maxR) + 3*f8(1) + f8(2) + 2*f8(maxC)
			}
			msg = 8 * max(maxR, maxC)
		} else if method == "2d" {
			q := max(int(math.Sqrt(float64(P))), 1)
			maxR := ownRows(n, q, 0)
			need = f8(maxR * maxR)
			if native {
				vOff, dOff := 0, 0
				for k := 0; k < n; k++ {
					vOff += (n-k+q-1)/q + 1
					dOff += q * ((n - k - 1 + q - 1) / q)
				}
				need += f8(2*n*q) + r4(4*n*q) + f8(vOff) + r4(4*n) + f8(dOff) + r4(4*n*q)
			} else {
				need += f8(maxR+1) + 2*f8(2) + 2*f8(maxR)
			}
			msg = 8 * (maxR + 1)
		} else {
			need = f8(n * most)
			if native {
				need += f8(qrSlot(n, n-1)) + r4(4*n)
			} else {
				need += f8(n + 1)
			}
			msg = 8 * (n + 1)
		}
	}
	return need, msg
}

// r4 is an allocation of n bytes as the heap hands it out: whole words,
// at least one.
func r4(n int) int { return 4 * ((max(n, 1) + 3) / 4) }
