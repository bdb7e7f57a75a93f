package beta

// Use asks for a volume.
func Use() int { return Volume(3) }
