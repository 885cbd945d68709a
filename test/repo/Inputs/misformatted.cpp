int  misformatted( ) {return 0;}
