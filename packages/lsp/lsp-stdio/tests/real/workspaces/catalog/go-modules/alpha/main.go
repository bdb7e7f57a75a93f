package alpha

// Use asks for an area.
func Use() int { return Area(3) }
