package rfb

import "image/color"

func yCbCrToRGB(y, cb, cr uint8) (uint8, uint8, uint8) { return color.YCbCrToRGB(y, cb, cr) }
