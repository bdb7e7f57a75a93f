from alpha_geo.shapes import area

print(area(3))
