"""Review of a class's submissions after grading: findings for an instructor, never a change of score."""
