"""Agent set-up: each agent's settings files, whether its server starts, doctor's agent
checks, and what each agent loads by itself.
"""
