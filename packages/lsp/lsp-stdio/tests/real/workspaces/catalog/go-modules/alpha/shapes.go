package alpha

// Area is the area of a square.
func Area(side int) int { return side * side }
