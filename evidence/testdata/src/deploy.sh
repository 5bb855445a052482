#!/bin/sh
dir=$1
cd $dir
for f in $(ls *.txt); do
  echo $f
done
if [ $dir == "x" ]; then echo yes; fi
