#ifndef SHAPES_H
#define SHAPES_H
int area(int side);
#endif
