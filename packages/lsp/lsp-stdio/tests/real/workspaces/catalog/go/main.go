package shapes

// Use calls Area after a non-ASCII string.
func Use() int { label := "größe 📐"; _ = label; return Area(3) }
