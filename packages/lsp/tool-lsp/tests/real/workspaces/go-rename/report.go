package main

import "fmt"

func report(sides []int) []string {
	lines := []string{}
	for _, side := range sides {
		lines = append(lines, fmt.Sprintf("🎉 %d", Area(side)))
	}
	return lines
}
