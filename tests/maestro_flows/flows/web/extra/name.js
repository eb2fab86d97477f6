output.name = WHO + ' ' + json('{"last": "Hopper"}').last
