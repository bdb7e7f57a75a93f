from geo.shapes import Circle, describe_shape


def report(shapes: list[Circle]) -> list[str]:
    return ["🎉 " + describe_shape(shape) for shape in shapes]


def summary(shapes: list[Circle]) -> str:
    return "\n".join(report(shapes))
