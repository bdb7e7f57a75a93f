package main

import "fmt"

func main() {
	fmt.Println(Area(2), report([]int{1, 2}))
}
