package main

// Area is the area of a square of side größe.
func Area(größe int) int {
	return größe * größe
}
