from beta_geo.shapes import area

print(area(3))
