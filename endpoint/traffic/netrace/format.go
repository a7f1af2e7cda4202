package netrace

// The binary layout of a Netrace v1.0 trace once bzip2 has decompressed
// it, all integers little-endian (Netrace writes its structs packed, on
// little-endian hosts):
//
//	header, 72 bytes:
//	  0  u32  magic 0x484A5455
//	  4  f32  version, 1.0
//	  8  [30] benchmark name, NUL-terminated
//	 38  u8   nodes
//	 39  u8   padding
//	 40  u64  cycles the traced program ran
//	 48  u64  packets in the trace
//	 56  u32  length of the notes, their NUL included
//	 60  u32  regions
//	 64  [8]  padding
//	notes, that many bytes
//	regions, 24 bytes each: u64 offset of the region's first packet from the
//	  end of the region table, u64 cycles, u64 packets
//	packets to the end of the stream, 21 bytes each followed by 4 per
//	  dependency:
//	  0  u64  cycle: the earliest the packet could be injected
//	  8  u32  id
//	 12  u32  address
//	 16  u8   type (an index of packetTypes)
//	 17  u8   source node
//	 18  u8   destination node
//	 19  u8   node types: source's in the high nibble, destination's in the low
//	 20  u8   dependencies
//	 21  u32 each: the ids of the packets that wait for this one
//
// A packet's dependencies are downward: they list the later packets that
// may not be injected before this one has been delivered.
const (
	Magic       = 0x484A5455
	headerBytes = 72
	regionBytes = 24
	packetBytes = 21
	// maxNotes and maxRegions are Netrace's own reader's limits: notes of
	// 8192 bytes or more are not read, more than 100 regions refused.
	maxNotes   = 8192
	maxRegions = 100
	nameBytes  = 30
)

// Packet sizes in bytes (Netrace's nt_packet_sizes): control packets (a
// request, an acknowledgement) carry an 8-byte header; data packets add a
// 64-byte cache line.
const (
	ControlBytes = 8
	DataBytes    = 72
)

// packetType is one of Netrace's packet types: its name and its size in
// bytes, 0 for the type numbers Netrace leaves invalid.
type packetType struct {
	name  string
	bytes int
}

// packetTypes are indexed by the type byte (Netrace's nt_packet_types and
// nt_packet_sizes); the types it calls InvalidCmd have no size.
var packetTypes = [...]packetType{
	0: {"InvalidCmd", 0}, 1: {"ReadReq", ControlBytes}, 2: {"ReadResp", DataBytes},
	3: {"ReadRespWithInvalidate", DataBytes}, 4: {"WriteReq", DataBytes}, 5: {"WriteResp", ControlBytes},
	6: {"Writeback", DataBytes}, 13: {"UpgradeReq", ControlBytes}, 14: {"UpgradeResp", ControlBytes},
	15: {"ReadExReq", ControlBytes}, 16: {"ReadExResp", DataBytes}, 25: {"BadAddressError", ControlBytes},
	27: {"InvalidateReq", ControlBytes}, 28: {"InvalidateResp", ControlBytes},
	29: {"DowngradeReq", ControlBytes}, 30: {"DowngradeResp", DataBytes},
}

// TypeName is the name of packet type t ("InvalidCmd" for an unknown one).
func TypeName(t uint8) string {
	if int(t) < len(packetTypes) && packetTypes[t].bytes > 0 {
		return packetTypes[t].name
	}
	return "InvalidCmd"
}

// TypeBytes is the size in bytes of a packet of type t, 0 if t is not a
// valid type.
func TypeBytes(t uint8) int {
	if int(t) < len(packetTypes) {
		return packetTypes[t].bytes
	}
	return 0
}
