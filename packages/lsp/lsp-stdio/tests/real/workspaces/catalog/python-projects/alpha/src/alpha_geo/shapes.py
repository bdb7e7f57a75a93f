def area(side: int) -> int:
    """The area of a square."""
    return side * side
