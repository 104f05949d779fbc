"""gitprog"""
