"""The words of each rule module beyond the core (rules/modules/), one module each."""
