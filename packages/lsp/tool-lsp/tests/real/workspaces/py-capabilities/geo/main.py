from geo.shapes import Circle, describe_shape

circle = Circle(2)
label = "🎉🎉"; text: str = describe_shape(circle)  # noqa: E702
