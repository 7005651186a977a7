// Package keys turns text and key names into X11 keysyms, and keysyms into
// PC/XT scan codes, for the remote-desktop clients (RFB speaks keysyms, RDP
// and QEMU's extended key events speak scan codes).
//
// The tables describe a US keyboard layout. They are fixed on purpose: an
// agent names keys from one documented table (docs/keys.md), and an unknown
// name is an error (UNKNOWN_KEY), never a guess.
package keys

// X11 keysyms for the named keys (values from X11/keysymdef.h).
const (
	XK_BackSpace   uint32 = 0xff08
	XK_Tab         uint32 = 0xff09
	XK_Return      uint32 = 0xff0d
	XK_Pause       uint32 = 0xff13
	XK_Scroll_Lock uint32 = 0xff14
	XK_Sys_Req     uint32 = 0xff15
	XK_Escape      uint32 = 0xff1b
	XK_Delete      uint32 = 0xffff

	XK_Home      uint32 = 0xff50
	XK_Left      uint32 = 0xff51
	XK_Up        uint32 = 0xff52
	XK_Right     uint32 = 0xff53
	XK_Down      uint32 = 0xff54
	XK_Page_Up   uint32 = 0xff55 // also named Prior
	XK_Page_Down uint32 = 0xff56 // also named Next
	XK_End       uint32 = 0xff57

	XK_Print       uint32 = 0xff61
	XK_Insert      uint32 = 0xff63
	XK_Menu        uint32 = 0xff67
	XK_Mode_switch uint32 = 0xff7e
	XK_Num_Lock    uint32 = 0xff7f

	XK_KP_Enter     uint32 = 0xff8d
	XK_KP_Home      uint32 = 0xff95
	XK_KP_Left      uint32 = 0xff96
	XK_KP_Up        uint32 = 0xff97
	XK_KP_Right     uint32 = 0xff98
	XK_KP_Down      uint32 = 0xff99
	XK_KP_Page_Up   uint32 = 0xff9a
	XK_KP_Page_Down uint32 = 0xff9b
	XK_KP_End       uint32 = 0xff9c
	XK_KP_Begin     uint32 = 0xff9d
	XK_KP_Insert    uint32 = 0xff9e
	XK_KP_Delete    uint32 = 0xff9f
	XK_KP_Multiply  uint32 = 0xffaa
	XK_KP_Add       uint32 = 0xffab
	XK_KP_Subtract  uint32 = 0xffad
	XK_KP_Decimal   uint32 = 0xffae
	XK_KP_Divide    uint32 = 0xffaf
	XK_KP_0         uint32 = 0xffb0 // XK_KP_1..XK_KP_9 follow in order

	XK_F1  uint32 = 0xffbe // XK_F2..XK_F35 follow in order
	XK_F24 uint32 = XK_F1 + 23

	XK_Shift_L          uint32 = 0xffe1
	XK_Shift_R          uint32 = 0xffe2
	XK_Control_L        uint32 = 0xffe3
	XK_Control_R        uint32 = 0xffe4
	XK_Caps_Lock        uint32 = 0xffe5
	XK_Meta_L           uint32 = 0xffe7
	XK_Meta_R           uint32 = 0xffe8
	XK_Alt_L            uint32 = 0xffe9
	XK_Alt_R            uint32 = 0xffea
	XK_Super_L          uint32 = 0xffeb
	XK_Super_R          uint32 = 0xffec
	XK_ISO_Level3_Shift uint32 = 0xfe03 // AltGr
	XK_ISO_Left_Tab     uint32 = 0xfe20 // what Tab types with Shift held

	XK_space uint32 = 0x0020
)

// UnicodeKeysymBase marks a keysym that carries a Unicode code point outside
// Latin-1: keysym = UnicodeKeysymBase | codepoint.
const UnicodeKeysymBase uint32 = 0x01000000

// F returns the keysym of function key Fn (1 ≤ n ≤ 35), or 0.
func F(n int) uint32 {
	if n < 1 || n > 35 {
		return 0
	}
	return XK_F1 + uint32(n-1)
}

// IsModifier reports whether sym is a modifier key: Shift, Control, Alt,
// Meta, Super (left or right), AltGr or Mode_switch. Lock keys are not
// modifiers here: they toggle state instead of being held.
func IsModifier(sym uint32) bool {
	switch sym {
	case XK_Shift_L, XK_Shift_R, XK_Control_L, XK_Control_R,
		XK_Meta_L, XK_Meta_R, XK_Alt_L, XK_Alt_R, XK_Super_L, XK_Super_R,
		XK_ISO_Level3_Shift, XK_Mode_switch:
		return true
	}
	return false
}
