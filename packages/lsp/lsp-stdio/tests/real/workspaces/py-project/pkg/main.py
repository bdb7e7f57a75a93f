from pkg.shapes import Circle, describe

circle = Circle(2.0)
label = "😀😀 wide"; text = describe(circle)
print(label, text)
