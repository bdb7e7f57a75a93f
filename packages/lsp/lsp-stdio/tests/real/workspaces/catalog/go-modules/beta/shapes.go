package beta

// Volume is the volume of a cube.
func Volume(side int) int { return side * side * side }
