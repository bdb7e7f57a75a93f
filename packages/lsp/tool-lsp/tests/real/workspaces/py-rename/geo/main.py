from geo.report import report, summary
from geo.shapes import Circle, describe_shape

circle = Circle(2)
text: str = describe_shape(circle)
lines: list[str] = report([circle])
everything: str = summary([circle, Circle(1)])
