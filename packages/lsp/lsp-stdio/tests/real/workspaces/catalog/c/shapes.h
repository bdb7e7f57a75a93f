#ifndef SHAPES_H
#define SHAPES_H
/* The area of a square with sides of größe units. */
static inline int area(int side) { return side * side; }
#endif
