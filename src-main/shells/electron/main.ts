console.log('electron main')
