"""gitio"""
