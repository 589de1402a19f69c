print("discoscope")
